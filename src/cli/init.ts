import type { Command } from './command.ts';

export const initCommands: Command[] = [];
