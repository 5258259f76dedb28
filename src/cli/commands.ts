import type { Command } from './command.ts';
import { serveCommands } from './serve.ts';
import { systemCommands } from './system.ts';

/** The command table: one group per file. */
export const commands: Command[] = [...serveCommands, ...systemCommands];
