import { loadCatalogue, setAvailability } from '../capabilities/availability.ts';
import type { Capability } from '../capabilities/catalogue.ts';
import { normalizeCountry } from '../capabilities/catalogue.ts';
import { NotFoundError } from '../errors.ts';
import { type Command, positional, required, str, UsageError, withContext } from './command.ts';

const row = (c: Capability & { name: string }) => ({
  country: c.country,
  name: c.name,
  documentType: c.documentType,
  available: c.available,
  captureMethods: c.captureMethods,
  assuranceLevel: c.assuranceLevel,
  updatedAt: c.updatedAt,
});

const line = (r: ReturnType<typeof row>) =>
  `${r.country}  ${r.documentType.padEnd(16)} ${(r.available ? 'available' : 'unavailable').padEnd(11)}  ${r.captureMethods.join(',').padEnd(13)} ${r.assuranceLevel.padEnd(11)}  ${r.updatedAt}`;

function countryArg(raw: string, label: string): string {
  const cc = normalizeCountry(raw);
  if (!cc) throw new UsageError(`${label} must be an ISO 3166-1 alpha-2 code such as DE, not "${raw}"`);
  return cc;
}

export const capabilitiesCommands: Command[] = [
  {
    name: 'capabilities list',
    summary:
      'List every country-document pair of the capability dataset with its effective availability (after operator changes).',
    usage: '[--country CC]',
    options: { country: { type: 'string', description: 'only this country (ISO 3166-1 alpha-2)' } },
    async run(cli, args) {
      const raw = str(args, 'country');
      const only = raw === undefined ? undefined : countryArg(raw, '--country');
      return withContext(cli, async (ctx) => {
        const catalogue = loadCatalogue(ctx.db);
        let countries = catalogue.countries;
        if (only) {
          const one = catalogue.country(only);
          if (!one) throw new NotFoundError(`country ${only} is not in the capability dataset`);
          countries = [one];
        }
        const capabilities = countries.flatMap((c) => c.documents.map((d) => row({ ...d, name: c.name })));
        cli.print(capabilities.map(line).join('\n'), { capabilities });
        return 0;
      });
    },
  },
  {
    name: 'capabilities set',
    summary:
      'Make one country-document pair available or unavailable. The running server serves the change on its next request; ' +
      'clients that cached the previous answer see it within 60 seconds.',
    usage: 'COUNTRY DOCUMENT_TYPE --available true|false',
    options: { available: { type: 'string', description: 'true or false' } },
    async run(cli, args) {
      const country = countryArg(positional(args, 0, 'COUNTRY'), 'COUNTRY');
      const documentType = positional(args, 1, 'DOCUMENT_TYPE');
      const flag = required(args, 'available').toLowerCase();
      if (flag !== 'true' && flag !== 'false') throw new UsageError('--available must be true or false');
      return withContext(cli, async (ctx) => {
        const r = setAvailability(ctx.db, ctx.clock, { country, documentType, available: flag === 'true' });
        const c = r.capability;
        const state = c.available ? 'available' : 'unavailable';
        cli.print(
          `${c.country} ${c.documentType} is now ${state}${r.previous === c.available ? ' (unchanged)' : ''}`,
          {
            country: c.country,
            documentType: c.documentType,
            available: c.available,
            previous: r.previous,
            updatedAt: c.updatedAt,
          },
        );
        return 0;
      });
    },
  },
];
