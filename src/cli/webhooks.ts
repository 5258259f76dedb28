import type { Command } from './command.ts';

export const webhooksCommands: Command[] = [];
