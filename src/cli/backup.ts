import type { Command } from './command.ts';

export const backupCommands: Command[] = [];
