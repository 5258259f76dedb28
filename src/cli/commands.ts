import { appsCommands } from './apps.ts';
import { auditCommands } from './audit.ts';
import { backupCommands } from './backup.ts';
import { capabilitiesCommands } from './capabilities.ts';
import type { Command } from './command.ts';
import { consentsCommands } from './consents.ts';
import { dbCommands } from './db.ts';
import { demoCommands } from './demo.ts';
import { developersCommands } from './developers.ts';
import { initCommands } from './init.ts';
import { keysCommands } from './keys.ts';
import { personsCommands } from './persons.ts';
import { serveCommands } from './serve.ts';
import { systemCommands } from './system.ts';
import { webhooksCommands } from './webhooks.ts';

/** The command table: one group per file. */
export const commands: Command[] = [
  ...serveCommands,
  ...systemCommands,
  ...initCommands,
  ...keysCommands,
  ...appsCommands,
  ...developersCommands,
  ...auditCommands,
  ...personsCommands,
  ...consentsCommands,
  ...webhooksCommands,
  ...capabilitiesCommands,
  ...backupCommands,
  ...dbCommands,
  ...demoCommands,
];
