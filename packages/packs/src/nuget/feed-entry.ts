/** One version of a package as a feed lists it, before anything is downloaded. */
export interface FeedEntry {
  id: string;
  /** As the feed spells it (NuGet's form: `1.0.0`, `1.0.0-beta`, `1.0.0.1`). */
  version: string;
  description: string;
  tags: string[];
  /** An absolute URL, or for a folder feed the .nupkg's absolute path. */
  download: string;
  /** `sha512-<base64>` of the .nupkg when the feed states it (a v2 feed's PackageHash, a folder's file). */
  integrity?: string;
  /** False when the feed marks the version unlisted (NuGet's nearest to yanked). */
  listed: boolean;
}

export interface FeedSearch {
  /** Exact, case-insensitive; an entry must have every one. */
  tags: string[];
  /** Words matched in the id, description or tags. */
  words: string[];
  limit: number;
}

/** One of the three ways a feed is read: a v3 service index, a v2 (OData) feed, a folder. */
export interface FeedProtocol {
  readonly kind: 'v3' | 'v2' | 'folder';
  /** Every version of the id (case-insensitive, as NuGet ids are); empty when unknown. */
  listVersions(id: string): Promise<FeedEntry[]>;
  /** Packages that match, as the feed's own search finds them (the client keeps each one's latest). */
  search(query: FeedSearch): Promise<FeedEntry[]>;
}

/** What a search asked for, checked again here: a feed's search is looser than ours. */
export function matchesSearch(entry: FeedEntry, query: FeedSearch): boolean {
  const tags = new Set(entry.tags.map((tag) => tag.toLowerCase()));
  if (!query.tags.every((tag) => tags.has(tag.toLowerCase()))) return false;
  const text = `${entry.id} ${entry.description} ${entry.tags.join(' ')}`.toLowerCase();
  return query.words.every((word) => text.includes(word.toLowerCase()));
}
