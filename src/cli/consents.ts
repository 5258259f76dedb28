import type { Command } from './command.ts';

export const consentsCommands: Command[] = [];
