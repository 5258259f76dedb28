import type { Command } from './command.ts';

export const demoCommands: Command[] = [];
