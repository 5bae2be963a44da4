// Languages the transcription adapters accept (BCP 47). A tenant's `transcription_language` must be one that at least
// one configured provider supports (docs/decisions.md §5). Each list follows its vendor's published language table.
export const PROVIDER_LANGUAGES: Record<string, readonly string[]> = {
  openai: [
    'af', 'ar', 'hy', 'az', 'be', 'bs', 'bg', 'ca', 'zh', 'hr', 'cs', 'da', 'nl', 'en', 'en-US', 'en-GB', 'et', 'fi',
    'fr', 'fr-CA', 'gl', 'de', 'el', 'he', 'hi', 'hu', 'is', 'id', 'it', 'ja', 'kn', 'kk', 'ko', 'lv', 'lt', 'mk',
    'ms', 'mr', 'mi', 'ne', 'no', 'fa', 'pl', 'pt', 'pt-BR', 'ro', 'ru', 'sr', 'sk', 'sl', 'es', 'es-419', 'sw', 'sv',
    'tl', 'ta', 'th', 'tr', 'uk', 'ur', 'vi', 'cy',
  ],
  deepgram: [
    'bg', 'ca', 'zh', 'zh-CN', 'zh-TW', 'cs', 'da', 'nl', 'en', 'en-US', 'en-AU', 'en-GB', 'en-NZ', 'en-IN', 'et', 'fi',
    'fr', 'fr-CA', 'de', 'de-CH', 'el', 'hi', 'hu', 'id', 'it', 'ja', 'ko', 'lv', 'lt', 'ms', 'no', 'pl', 'pt', 'pt-BR',
    'ro', 'ru', 'sk', 'es', 'es-419', 'sv', 'th', 'tr', 'uk', 'vi',
  ],
};

/** Canonical form of a BCP 47 tag (`en-us` → `en-US`), or null when it is not a well-formed tag. */
export function canonicalLanguage(tag: string): string | null {
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

export function isSupportedLanguage(tag: string, providers: readonly string[] = Object.keys(PROVIDER_LANGUAGES)): boolean {
  return providers.some((p) => PROVIDER_LANGUAGES[p]?.includes(tag));
}
