/**
 * One demo process's first-run registration, run as its own OS process by registration.test.ts:
 * `bun test/demo/register-process.ts <config.toml> <demo url>`. It opens the (already migrated)
 * database, prints `ready`, waits for `go` on standard input so that several processes register at
 * the same moment, then prints the registration it ended up with as one JSON line.
 */
import { createContext } from '../../src/bootstrap.ts';
import { parseConfig } from '../../src/config/load.ts';
import { ensureDemoRegistration } from '../../src/demo/registration.ts';
import { silentLogger } from '../../src/log.ts';

const [configPath, demoUrl] = process.argv.slice(2);
const ctx = await createContext(parseConfig(await Bun.file(configPath!).text()), {
  log: silentLogger,
  migrate: false,
});
process.stdout.write('ready\n');
for await (const chunk of process.stdin) if (new TextDecoder().decode(chunk).includes('go')) break;
const reg = await ensureDemoRegistration(ctx, demoUrl!);
process.stdout.write(`${JSON.stringify(reg)}\n`);
ctx.db.close();
