// Words as find_tools compares them. Tool names come in every casing a source system uses
// (`Get-Widget`, `get_widget`, `getWidget`, `GetWidgetJSON`), and a query is typed in plain
// words, so both go through the same splitting and the same light normalisation.

/** Words too common to tell tools apart; a query made only of them finds nothing. */
const STOPWORDS = new Set(
  'a an and are as at be by for from in into is it its of on or that the this to with'.split(' '),
);

// Within one alphanumeric run: an acronym before a capitalised word (`JSON` in `JSONParser`),
// a capitalised or lower-case word, a trailing acronym, or a number.
const WORD_PATTERN = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g;

/**
 * Folds the regular English plural and third person (`issues`, `creates`, `entries`) onto
 * one form, so "list issues" meets "Lists the issue". Short words and `-ss` are left alone.
 */
export function normaliseWord(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us'))
    return word.slice(0, -1);
  return word;
}

/**
 * Calls `visit` with each normalised lower-case word of any text or identifier, stopwords
 * dropped. A run written in mixed case also counts whole (`GitLab` gives `git`, `lab`, then
 * `gitlab` with `whole` set), because the same product is written `gitlab` in another name.
 */
export function visitWords(text: string, visit: (word: string, whole: boolean) => void): void {
  for (const run of text.match(/[A-Za-z0-9]+/g) ?? []) {
    const parts = run.match(WORD_PATTERN) ?? [];
    for (const part of parts) {
      const word = part.toLowerCase();
      if (!STOPWORDS.has(word)) visit(normaliseWord(word), false);
    }
    if (parts.length > 1) visit(normaliseWord(run.toLowerCase()), true);
  }
}

/** The words `visitWords` visits, in order. */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  visitWords(text, (word) => words.push(word));
  return words;
}
