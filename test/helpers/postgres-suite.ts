// Runs `bun test --parallel` with its arguments on PostgreSQL: one server and one migrated template
// for all of the runner's worker processes, instead of one of each per test file (a worker starts each
// file with its modules afresh). The server stops when this process ends (postgres.ts).
import { shareCluster } from './postgres.ts';

const tests = Bun.spawn([process.execPath, 'test', '--parallel', ...process.argv.slice(2)], {
  stdio: ['inherit', 'inherit', 'inherit'],
  env: { ...process.env, ...shareCluster(), VERITY_TEST_ENGINE: 'postgres' },
});
process.exit(await tests.exited);
