import type { Command } from './command.ts';

export const keysCommands: Command[] = [];
