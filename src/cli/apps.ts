import type { Command } from './command.ts';

export const appsCommands: Command[] = [];
