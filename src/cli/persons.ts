import { getApplication } from '../apps/application.store.ts';
import { revokePersonConsents } from '../consent/lifecycle.ts';
import { applicationIds } from '../documents/reference.ts';
import { importPersons } from '../persons/import.ts';
import { disablePerson, getPerson, listPersons, type PersonDetail } from '../persons/persons.ts';
import { proc } from '../platform/process.ts';
import { type Command, positional, printable, str, UsageError, withContext } from './command.ts';

async function readInput(file: string): Promise<string> {
  try {
    return await proc.readFile(file);
  } catch (e) {
    throw new Error(`cannot read ${file}: ${(e as { code?: string }).code ?? (e as Error).message}`);
  }
}

const ENVIRONMENTS = ['production', 'sandbox'] as const;
const STATUSES = ['active', 'disabled'] as const;

function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  flag: string,
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${flag} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export const personsCommands: Command[] = [
  {
    name: 'persons import',
    summary: 'Import or update persons from a JSON Lines file (all lines valid, or nothing is written).',
    usage: 'FILE',
    async run(cli, args) {
      const file = positional(args, 0, 'FILE');
      const text = await readInput(file);
      const result = await withContext(cli, (ctx) => importPersons(ctx, text, { actor: 'cli' }));
      cli.print(`imported ${result.imported}, updated ${result.updated}`, result);
      return 0;
    },
  },
  {
    name: 'persons list',
    summary: 'List persons (production by default).',
    usage: '[--env production|sandbox] [--status active|disabled]',
    options: {
      env: { type: 'string', description: 'production (default) or sandbox' },
      status: { type: 'string', description: 'active or disabled' },
    },
    async run(cli, args) {
      const environment = oneOf(str(args, 'env') ?? 'production', ENVIRONMENTS, 'env');
      const status = oneOf(str(args, 'status'), STATUSES, 'status');
      const persons = await withContext(cli, (ctx) => listPersons(ctx.db, { environment, status }));
      // Each row escaped: data imported before the import refused control characters keeps them.
      const rows = persons.map((p) =>
        printable(
          `${p.personId}  ${p.status.padEnd(8)}  ${p.assuranceLevel.padEnd(11)}  ${p.externalId}  ${p.name ?? ''}${p.email ? ` <${p.email}>` : ''}`,
        ),
      );
      cli.print(rows.length ? rows.join('\n') : 'no persons', { persons });
      return 0;
    },
  },
  {
    name: 'persons show',
    summary: 'Show one person with their emails, phones and documents (no password, masked numbers).',
    usage: 'PERSON_ID | --external-id ID [--application APP_ID]',
    options: {
      'external-id': { type: 'string', description: "find the person by the upstream system's id" },
      application: {
        type: 'string',
        description: "add each document's reference and attestation id as this application sees them",
      },
    },
    async run(cli, args) {
      const externalId = str(args, 'external-id');
      const applicationId = str(args, 'application');
      const personId = args.positionals[0];
      if ((externalId === undefined) === (personId === undefined))
        throw new UsageError('give either PERSON_ID or --external-id');
      const person = await withContext(cli, async (ctx) => {
        const p = getPerson(ctx.db, personId !== undefined ? { personId } : { externalId: externalId! });
        if (applicationId === undefined) return p;
        getApplication(ctx.db, applicationId);
        const documents = [];
        for (const d of p.documents)
          documents.push({
            ...d,
            application: { applicationId, ...(await applicationIds(ctx, applicationId, d)) },
          });
        return { ...p, documents };
      });
      cli.print(describe(person), person);
      return 0;
    },
  },
  {
    name: 'persons disable',
    summary: 'Disable a person so they can no longer sign in; their consents are revoked.',
    usage: 'PERSON_ID',
    async run(cli, args) {
      const personId = positional(args, 0, 'PERSON_ID');
      // Disabling ends the person's consents too, so applications are told (consent.revoked), in one
      // transaction: no crash leaves a disabled person with consents in force and nothing sent.
      const result = await withContext(cli, async (ctx) => {
        let disabled: ReturnType<typeof disablePerson> | undefined;
        await revokePersonConsents(ctx, personId, {
          actor: 'cli',
          together: () => {
            disabled = disablePerson(ctx, personId, { actor: 'cli' });
          },
        });
        return disabled!;
      });
      cli.print(result.changed ? `${personId} disabled` : `${personId} was already disabled`, {
        personId: result.personId,
        status: result.status,
      });
      return 0;
    },
  },
];

type ShownPerson = Omit<PersonDetail, 'documents'> & {
  documents: (PersonDetail['documents'][number] & {
    application?: { applicationId: string; documentReference: string; attestationId: string };
  })[];
};

function describe(p: ShownPerson): string {
  const lines = [
    `${p.personId} (${p.environment}, ${p.status})`,
    `  external id     ${p.externalId}`,
    `  name            ${p.name ?? ''}`,
    `  legal name      ${[p.legalGivenName, p.legalFamilyName].filter(Boolean).join(' ')}`,
    `  birthdate       ${p.birthdate ?? ''}`,
    `  nationalities   ${p.nationalities.join(', ')}`,
    `  assurance       ${p.assuranceLevel}${p.identityVerified ? ', identity verified' : ''}`,
    `  password        ${p.hasPassword ? 'set' : 'none'}`,
    `  photo           ${p.hasPhoto ? (p.photoVerified ? 'verified' : 'unverified') : 'none'}`,
  ];
  for (const e of p.emails)
    lines.push(
      `  email           ${e.email}${e.verified ? ' (verified)' : ''}${e.primary ? ' [primary]' : ''}`,
    );
  for (const ph of p.phones)
    lines.push(
      `  phone           ${ph.phone}${ph.verified ? ' (verified)' : ''}${ph.primary ? ' [primary]' : ''}`,
    );
  for (const d of p.documents) {
    const issued = d.issueDate ? `issued ${d.issueDate}, ` : '';
    const method = d.checkMethod ? ` by ${d.checkMethod}` : '';
    lines.push(
      `  document        ${d.documentId} ${d.type} ${d.issuingCountry} ${d.maskedNumber} ${issued}expires ${d.expiryDate}, ${d.validityStatus}${d.verified ? `, verified${method}` : ''}${d.primary ? ' [primary]' : ''}${d.status === 'disabled' ? ' (disabled)' : ''}`,
    );
    if (d.application)
      lines.push(
        `    to ${d.application.applicationId}: reference ${d.application.documentReference}, attestation ${d.application.attestationId}`,
      );
  }
  return lines.map((l) => printable(l)).join('\n');
}
