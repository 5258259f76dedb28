import type { Command } from './command.ts';

export const capabilitiesCommands: Command[] = [];
