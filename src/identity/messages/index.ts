import { en, type Messages } from './en.ts';

/** Available catalogues by language tag; add a file and a line here for a new language. */
const CATALOGUES: Record<string, Messages> = { en };

/**
 * The catalogue for `ui_locales` (OIDC Core: space-separated BCP 47 tags in order of preference): the
 * first tag, or its primary language, that has a catalogue; English otherwise.
 */
export function messagesFor(uiLocales?: string | null): Messages {
  for (const tag of (uiLocales ?? '').split(/\s+/).filter(Boolean)) {
    const lower = tag.toLowerCase();
    const hit = CATALOGUES[lower] ?? CATALOGUES[lower.split('-')[0]!];
    if (hit) return hit;
  }
  return en;
}

export type { Messages };
