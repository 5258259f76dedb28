// Migrates the database named by its argument: the template test/helpers/postgres.ts copies each test
// context's database from. The history records the test contexts' default time.
import { migrate } from '../../src/db/migrate.ts';
import { openDb } from '../../src/db/open.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { TEST_START } from './context.ts';

const db = await openDb(process.argv[2]!);
migrate(db, fixedClock(TEST_START));
db.close();
