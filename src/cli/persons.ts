import type { Command } from './command.ts';

export const personsCommands: Command[] = [];
