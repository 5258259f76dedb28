import type { Command } from './command.ts';

export const developersCommands: Command[] = [];
