import { DEFAULT_CONFIG_PATH } from '../config/file.ts';
import { parseConfig } from '../config/load.ts';
import { randomToken } from '../crypto/tokens.ts';
import { files } from '../platform/files.ts';
import type { Command } from './command.ts';

/**
 * Every key with its default, so the file documents itself, plus the two instance secrets filled in.
 * Kept in step with src/config/schema.ts: the init test parses this text with the strict schema.
 */
export function configTemplate(secrets: { pairwiseSecret: string; webhookSecretKey: string }): string {
  return `# Verity configuration. Every key below shows its default; delete any you do not change.
# Durations are strings such as "90s", "10m", "30d". Any key can also come from the environment as
# VERITY_<SECTION>_<KEY>, e.g. VERITY_OIDC_PAIRWISE_SECRET.

[server]
listen = "127.0.0.1:8080"          # host:port
base_url = "http://localhost:8080" # issuer and API base; use your public https URL in production
identity_url = ""                  # default base_url + "/identity"
developer_url = ""                 # default base_url + "/developer"
trust_proxy = ""                   # e.g. "x-forwarded-for" behind a reverse proxy; empty = socket address
trusted_proxies = []               # proxies on other machines whose header is believed, e.g. ["10.0.0.5"]
allow_http = false                 # true allows http:// public URLs on a non-loopback host
metrics_token = ""                 # bearer token for /metrics from other hosts (32+ bytes); empty = loopback clients only
signing_threads = "auto"           # threads that sign ID tokens: "auto" = one per core; 0 = the serving thread

[database]
path = "./data/verity.db"
url = ""                          # PostgreSQL instead of SQLite: "postgres://user:password@host:5432/verity" (or VERITY_DATABASE_URL); several instances may share it

[keys]
dir = "./data/keys"                # signing keys (0600); back this directory up with the database
rotate_every = "30d"
publish_ahead = "1h"
rsa_bits = 2048

[oauth]
code_ttl = "5m"
token_ttl = "15m"
purpose_max_length = 300

[oidc]
# Keys the pairwise subject identifiers. Changing it changes every "sub" every application sees.
pairwise_secret = "${secrets.pairwiseSecret}"

[rate_limits.oauth]
requests = 30
window = "10m"

[rate_limits.userinfo]
requests = 600
window = "1m"

[rate_limits.capabilities]
requests = 300
window = "1m"

[rate_limits.developer]
requests = 120
window = "1m"

[rate_limits.web]
requests = 300
window = "1m"

[webhooks]
allow_localhost_in_sandbox = false
timeout = "5s"
# Encrypts webhook signing secrets at rest. Losing it makes every endpoint's secret unreadable.
secret_key = "${secrets.webhookSecretKey}"
concurrency_per_endpoint = 2
lease = "60s"

[face]
provider = "none"                  # none | http ("local", on-box models, is not available yet); "none" stops production sign-ins with a clear page
http_url = ""
http_token = ""
timeout = "10s"
attempts = 3                       # failed face checks allowed per authorization
reuse_within = "0s"                # "0s": every authorization performs its own face check

[consent]
max_age = "365d"

[identity]
session_idle = "30m"
session_absolute = "12h"
interaction_ttl = "15m"
signin_attempts_per_account = 5
signin_attempts_per_ip = 20
signin_window = "15m"
sandbox = true                     # offer the built-in sandbox personas

[developer]
signup = "invite"                  # open | invite
signups_per_ip = 5
signup_window = "1h"

[email]
transport = "log"                  # log | smtp
host = ""
port = 587
starttls = true
user = ""
password = ""                      # or VERITY_EMAIL_PASSWORD
from = "Verity <verity@localhost>"

[assurance]
trust_framework = ""               # trust framework named in production verified_claims; empty = none
proof_ttl = "30d"                  # lifetime of a signed document proof

[demo]
enabled = true                     # npm start (verity demo --with-server) also starts the demo; serve never does
listen = "127.0.0.1:8081"
url = ""

[log]
level = "info"                     # debug | info | warn | error
`;
}

export const initCommands: Command[] = [
  {
    name: 'init',
    summary: 'Write a new configuration file with fresh instance secrets.',
    usage: '[--config FILE] [--force]',
    options: { force: { type: 'boolean', description: 'replace an existing file (its secrets are lost)' } },
    async run(cli, args) {
      const file = cli.configPath || DEFAULT_CONFIG_PATH;
      if (args.values.force !== true && (await files.exists(file)))
        throw new Error(`${file} already exists (use --force to replace it; its secrets would be lost)`);
      const text = configTemplate({
        pairwiseSecret: randomToken('', 32),
        webhookSecretKey: randomToken('', 32),
      });
      // A template the schema rejects would be a bug here, not the operator's problem: fail before writing.
      parseConfig(text);
      await files.ensureDir(files.dirname(file));
      // The file holds secrets: owner-only from the first byte.
      await files.writePrivateAtomic(file, text);
      const flag = cli.configPath ? ` --config ${file}` : '';
      cli.print(
        [
          `wrote ${file} (mode 0600) with fresh secrets; keep it private and back it up.`,
          '',
          'Next steps:',
          `  1. Edit ${file}: set [server] base_url to the public URL and [face] provider for production.`,
          `  2. verity config check${flag}`,
          `  3. verity migrate${flag}`,
          `  4. verity serve${flag}`,
        ].join('\n'),
        { file },
      );
      return 0;
    },
  },
];
