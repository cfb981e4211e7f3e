/**
 * Name matching the way compliance teams expect (docs/vendors/sanctions-lists.md, "Matching"):
 * case, diacritics, punctuation and word order do not matter; Cyrillic and Greek are transliterated
 * (other scripts compare in their own script, and every list gives its Latin forms too); aliases are
 * names of the entry; initials match the word they abbreviate; small typos are absorbed by
 * Jaro-Winkler over the normalized tokens with a token-set alignment. Date of birth and country move
 * the score where both sides have them. Weak aliases only count when a date of birth or a country
 * corroborates them (OFAC FAQ 124). An index from token keys to names keeps a screening from
 * comparing a name with every entry.
 */
import type { EntryKind, ListEntry, NameStrength, ScreenParty } from './port';

// ---------------------------------------------------------------------------------------------
// Normalization

/** ICAO 9303 / BGN-like Russian, Ukrainian and Belarusian letters, then Greek (ELOT 743). */
const TRANSLIT: Record<string, string> = {
  а: 'a',
  б: 'b',
  в: 'v',
  г: 'g',
  ґ: 'g',
  д: 'd',
  е: 'e',
  ё: 'e',
  є: 'ie',
  ж: 'zh',
  з: 'z',
  и: 'i',
  і: 'i',
  ї: 'i',
  й: 'i',
  к: 'k',
  л: 'l',
  м: 'm',
  н: 'n',
  о: 'o',
  п: 'p',
  р: 'r',
  с: 's',
  т: 't',
  у: 'u',
  ў: 'u',
  ф: 'f',
  х: 'kh',
  ц: 'ts',
  ч: 'ch',
  ш: 'sh',
  щ: 'shch',
  ъ: '',
  ы: 'y',
  ь: '',
  э: 'e',
  ю: 'iu',
  я: 'ia',
  α: 'a',
  β: 'v',
  γ: 'g',
  δ: 'd',
  ε: 'e',
  ζ: 'z',
  η: 'i',
  θ: 'th',
  ι: 'i',
  κ: 'k',
  λ: 'l',
  μ: 'm',
  ν: 'n',
  ξ: 'x',
  ο: 'o',
  π: 'p',
  ρ: 'r',
  σ: 's',
  ς: 's',
  τ: 't',
  υ: 'y',
  φ: 'f',
  χ: 'ch',
  ψ: 'ps',
  ω: 'o',
  ß: 'ss',
  æ: 'ae',
  ø: 'o',
  œ: 'oe',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  ı: 'i',
  þ: 'th',
};

/** Legal forms and honorifics that say nothing about who a party is. */
const NOISE = new Set([
  'ltd',
  'llc',
  'inc',
  'corp',
  'co',
  'plc',
  'gmbh',
  'ag',
  'sa',
  'sarl',
  'srl',
  'bv',
  'nv',
  'oy',
  'ab',
  'limited',
  'company',
  'corporation',
  'ooo',
  'oao',
  'zao',
  'pao',
  'ao',
  'jsc',
  'pjsc',
  'ojsc',
  'cjsc',
  'llp',
  'mr',
  'mrs',
  'ms',
  'dr',
  'the',
]);

/** Lower case, no diacritics, Cyrillic and Greek in Latin letters, punctuation as spaces; the tokens. */
export function normalizeTokens(name: string): string[] {
  const decomposed = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  let out = '';
  for (const ch of decomposed) out += TRANSLIT[ch] ?? ch;
  return out
    .replace(/['’`ʼ]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t.length > 0 && !NOISE.has(t));
}

/** The normalized name as one string (tokens in order). */
export const normalizeName = (name: string): string => normalizeTokens(name).join(' ');

// ---------------------------------------------------------------------------------------------
// Jaro-Winkler

export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(la, lb) / 2) - 1);
  const ma = new Uint8Array(la);
  const mb = new Uint8Array(lb);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const lo = Math.max(0, i - window);
    const hi = Math.min(lb - 1, i + window);
    for (let j = lo; j <= hi; j++) {
      if (mb[j] || a.charCodeAt(i) !== b.charCodeAt(j)) continue;
      ma[i] = 1;
      mb[j] = 1;
      matches++;
      break;
    }
  }
  if (matches === 0) return 0;
  let t = 0;
  let k = 0;
  for (let i = 0; i < la; i++) {
    if (!ma[i]) continue;
    while (!mb[k]) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) t++;
    k++;
  }
  const jaro = (matches / la + matches / lb + (matches - t / 2) / matches) / 3;
  let prefix = 0;
  while (prefix < 4 && prefix < la && prefix < lb && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

// ---------------------------------------------------------------------------------------------
// Token-set alignment

/** Token pairs below this similarity do not align (a different word, not a typo). */
const TOKEN_MIN = 0.84;
/** An initial ("J") aligned with the word it abbreviates ("John"). */
const INITIAL_SIM = 0.85;

/** Two words that sound alike (same consonant skeleton) but spell differently enough for Jaro-Winkler. */
const SOUND_SIM = 0.86;
/** The Jaro-Winkler floor under which a same-sounding word is still another word. */
const SOUND_JW_MIN = 0.75;

/** Vowel groups of a word ("mahmoud" 2, "muhammad" 3). */
const syllables = (t: string) => t.match(/[aeiouy]+/g)?.length ?? 0;
/** Three-letter words one vowel apart with the same skeleton ("Ali" / "Aly"). */
const SHORT_SIM = 0.86;

/**
 * A consonant skeleton of a Latin word, for sound-alike spellings (OFAC's own search scores names with
 * Jaro-Winkler and the phonetic Soundex, FAQ 249): a leading vowel becomes `a`, then digraphs and
 * letters that sound alike merge (`ph` f, `v`/`w` f, `c`/`q`/`ck` k, `z` s, `kh`/`dh`/`th`/`gh` k/d/t/g,
 * `j` as a vowel: Yuri, Iurii, Jurij), vowels and `h` drop and repeated consonants collapse:
 * Mohammed, Muhammad and Mohamed are all `md`, Ahmed and AHMAD `amd`, Yusuf and Youssef `ysf`.
 * Empty for words in other scripts or with digits.
 */
export function skeleton(token: string): string {
  const known = SKELETONS.get(token);
  if (known !== undefined) return known;
  const k = computeSkeleton(token);
  // Bounded memo: the same words recur across names and queries.
  if (SKELETONS.size >= 200_000) SKELETONS.clear();
  SKELETONS.set(token, k);
  return k;
}

const SKELETONS = new Map<string, string>();

function computeSkeleton(token: string): string {
  if (!/^[a-z]+$/.test(token)) return '';
  const s = token
    .replace(/ph/g, 'f')
    .replace(/(?:ck|q)/g, 'k')
    .replace(/x/g, 'ks')
    .replace(/c(?=[eiy])/g, 's')
    .replace(/[cg]/g, 'k')
    .replace(/([kdtg])h/g, '$1')
    .replace(/[vw]/g, 'f')
    .replace(/z/g, 's')
    .replace(/j/g, 'y');
  const vowel = (ch: string) => 'aeiouy'.includes(ch);
  let out = vowel(s[0]!) ? 'a' : s[0]!;
  for (let i = 1; i < s.length; i++) {
    const ch = s[i]!;
    if (vowel(ch) || ch === 'h' || ch === out[out.length - 1]) continue;
    out += ch;
  }
  return out;
}

function tokenSim(q: string, c: string): number {
  if (q === c) return 1;
  if (q.length === 1 || c.length === 1) return q[0] === c[0] ? INITIAL_SIM : 0;
  // Very short words differ by one letter in too many unrelated names to count as typos; only a
  // vowel of a three-letter word may differ ("Ali" / "Aly"), never a consonant ("Ali" / "Alf").
  if (Math.min(q.length, c.length) <= 3) {
    if (q.length !== 3 || c.length !== 3 || q[0] !== c[0]) return 0;
    let diff = 0;
    for (let i = 0; i < 3; i++) if (q[i] !== c[i]) diff++;
    return diff === 1 && skeleton(q) === skeleton(c) ? SHORT_SIM : 0;
  }
  const s = jaroWinkler(q, c);
  if (s >= TOKEN_MIN) return s;
  // Same sound, different spelling: the same skeleton and as many vowel groups, with letters that
  // still mostly agree ("Yusuf" / "Youssef" 0.81, "Mohamed" / "Muhammad" 0.80); not two different
  // names of the same root ("Mahmoud" / "Muhammad" or "Mohammad": both `md`, two vowel groups
  // against three).
  if (s < SOUND_JW_MIN) return 0;
  const k = skeleton(q);
  return k.length >= 2 && k === skeleton(c) && syllables(q) === syllables(c) ? SOUND_SIM : 0;
}

/** Words written together on one side and apart on the other ("Abdulrahman" / "Abd al-Rahman"): at most three. */
const JOIN_MAX = 3;
/** How close a joined run must be to the single word it stands for. */
const JOIN_MIN = 0.9;

/**
 * `a` with runs of two or three adjacent words joined into one where the joined form is (nearly) a
 * single word of `b` that `a` does not already have: "abd al rahman" against "abdulrahman" becomes
 * "abdalrahman". The other words stay as they are.
 */
function joinRuns(a: readonly string[], b: readonly string[]): readonly string[] {
  if (a.length < 2) return a;
  // Fast path (most pairs): a run can only stand for a long word of `b` that some word of `a`
  // begins (same first letter) and is clearly shorter than.
  const long: string[] = [];
  for (const t of b)
    if (t.length >= 6 && !a.includes(t) && a.some((w) => w[0] === t[0] && w.length + 2 < t.length))
      long.push(t);
  if (long.length === 0) return a;
  let out: string[] | null = null;
  for (let i = 0; i < a.length; i++) {
    let joined: string | null = null;
    let span = 0;
    for (let k = Math.min(JOIN_MAX, a.length - i); k >= 2 && !joined; k--) {
      const run = a.slice(i, i + k).join('');
      for (const t of long)
        if (sameJoined(run, t)) {
          joined = run;
          span = k;
          break;
        }
    }
    if (joined) {
      out ??= a.slice(0, i);
      out.push(joined);
      i += span - 1;
    } else out?.push(a[i]!);
  }
  return out ?? a;
}

/** A run of joined words that is (nearly) the single word `t`. */
function sameJoined(run: string, t: string): boolean {
  return (
    t === run ||
    (t[0] === run[0] &&
      Math.abs(t.length - run.length) <= 2 &&
      (jaroWinkler(run, t) >= JOIN_MIN || skeleton(run) === skeleton(t)))
  );
}

const weight = (t: string) => (t.length === 1 ? 1 : t.length);

/** Candidate-side weights: middle words (patronymics, second given names) count half. */
function candidateWeights(c: readonly string[]): number[] {
  return c.map((t, j) => (j > 0 && j < c.length - 1 ? 0.5 : 1) * weight(t));
}

/**
 * 0-1: how well the two token sets align, whatever the order. Each query token pairs with at most one
 * candidate token (best pairs first). The score is 0.6 of the better-explained side plus 0.4 of the
 * other, where the list name's middle words count half (a missing patronymic or second given name costs
 * little) and an initial explains the word it abbreviates at 0.85. At least one whole word must align,
 * and a single aligned word scores the mean of both sides (one shared word of a longer name is no hit).
 */
export function tokenSetScore(query: readonly string[], candidate: readonly string[]): number {
  if (query.length === 0 || candidate.length === 0) return 0;
  const q = joinRuns(query, candidate);
  const c = joinRuns(candidate, q);
  const pairs: { i: number; j: number; s: number }[] = [];
  for (let i = 0; i < q.length; i++)
    for (let j = 0; j < c.length; j++) {
      const s = tokenSim(q[i]!, c[j]!);
      if (s > 0) pairs.push({ i, j, s });
    }
  if (pairs.length === 0) return 0;
  pairs.sort((x, y) => y.s - x.s);
  const cw = candidateWeights(c);
  const usedQ = new Uint8Array(q.length);
  const usedC = new Uint8Array(c.length);
  let explainedQ = 0;
  let explainedC = 0;
  let aligned = 0;
  let words = 0;
  for (const p of pairs) {
    if (usedQ[p.i] || usedC[p.j]) continue;
    usedQ[p.i] = 1;
    usedC[p.j] = 1;
    aligned++;
    if (q[p.i]!.length > 1 && c[p.j]!.length > 1) words++;
    explainedQ += weight(q[p.i]!) * p.s;
    explainedC += cw[p.j]! * p.s;
  }
  if (words === 0) return 0;
  const rq = explainedQ / q.reduce((n, t) => n + weight(t), 0);
  const rc = explainedC / cw.reduce((n, w) => n + w, 0);
  if (aligned === 1 && q.length + c.length > 2) return (rq + rc) / 2;
  return 0.6 * Math.max(rq, rc) + 0.4 * Math.min(rq, rc);
}

// ---------------------------------------------------------------------------------------------
// Date of birth and country

/** Whether an identifier both sides have agrees; null when either side has none. */
export type IdentifierCheck = 'agrees' | 'differs' | null;

/**
 * The party's date of birth (`YYYY-MM-DD`, `YYYY-MM` or `YYYY`) against the entry's: it agrees when
 * it falls inside one of them. A window (`1958/1962`: a range or an approximate date) holds every
 * date of its years; a year holds every date of that year; a month every day of it; a full date only
 * itself, or its year when the party gives only a year.
 */
export function dobCheck(party: string | null | undefined, entry: readonly string[]): IdentifierCheck {
  if (!party || entry.length === 0) return null;
  const py = Number(party.slice(0, 4));
  if (!Number.isInteger(py) || py < 1000) return null;
  const pm = party.length >= 7 ? party.slice(0, 7) : null;
  let compared = false;
  for (const d of entry) {
    const w = /^(\d{4})\/(\d{4})$/.exec(d);
    if (w) {
      compared = true;
      if (py >= Number(w[1]) && py <= Number(w[2])) return 'agrees';
      continue;
    }
    const y = Number(d.slice(0, 4));
    if (!Number.isInteger(y) || y < 1000) continue;
    compared = true;
    if (y !== py) continue;
    if (d.length === 4) return 'agrees';
    if (d.length === 7 && (pm === null || pm === d)) return 'agrees';
    if (d.length === 10 && (party.length === 4 || (party.length === 7 && d.startsWith(party)) || d === party))
      return 'agrees';
  }
  return compared ? 'differs' : null;
}

/** The party's country (ISO alpha-2) against the entry's nationality, citizenship and address countries. */
export function countryCheck(party: string | null | undefined, entry: readonly string[]): IdentifierCheck {
  if (!party || entry.length === 0) return null;
  return entry.includes(party.toUpperCase()) ? 'agrees' : 'differs';
}

/** What an agreeing date of birth and country add to a name score (0-1); a difference takes nothing off. */
const DOB_AGREES = 0.05;
const COUNTRY_AGREES = 0.03;

// ---------------------------------------------------------------------------------------------
// Index

interface IndexedName {
  entry: number;
  name: string;
  tokens: string[];
  strength: NameStrength;
}

interface IndexedEntry {
  id: string;
  kind: EntryKind;
  primary: string;
  dobs: string[];
  countries: string[];
}

export interface Candidate {
  entryId: string;
  entryName: string;
  matchedName: string;
  strength: NameStrength;
  /** 0-100. */
  score: number;
  /** The party's date of birth against the entry's (null: one side has none). */
  dobCheck: IdentifierCheck;
  /** The party's country against the entry's (null: one side has none). */
  countryCheck: IdentifierCheck;
}

/**
 * Blocking keys of a token: its first three and last three letters (the whole word when shorter), and
 * its consonant skeleton with its number of vowel groups (`skeleton`), so that sound-alike spellings meet ("Mohammed" / "Muhammad",
 * "Ahmed" / "AHMAD", "Ali" / "Aly") even when they share neither end.
 */
function keysOf(token: string): string[] {
  const k = skeleton(token);
  // With the vowel-group count, as tokenSim requires: postings of short skeletons stay short.
  const sound = k.length >= 2 ? [`k:${k}${syllables(token)}`] : [];
  if (token.length <= 3) return [`w:${token}`, ...sound];
  return [`p:${token.slice(0, 3)}`, `s:${token.slice(-3)}`, ...sound];
}

/**
 * Runs of two or three adjacent words written together, where one of them is short (a particle or a
 * short name part: "abd al rahman" gives "abdal", "alrahman", "abdalrahman"): indexed and looked up
 * as one more word, so "Abdulrahman" and "Abd al-Rahman" share keys. Runs of long words only are left
 * out: their keys are those of their first and last words already.
 */
function joinedRuns(tokens: readonly string[]): { run: string; first: number }[] {
  const out: { run: string; first: number }[] = [];
  for (let i = 0; i < tokens.length; i++)
    for (let k = 2; k <= JOIN_MAX && i + k <= tokens.length; k++) {
      const part = tokens.slice(i, i + k);
      if (part.some((t) => t.length <= 1) || !part.some((t) => t.length <= 3)) continue;
      out.push({ run: part.join(''), first: i });
    }
  return out;
}

/**
 * The names of one list snapshot, indexed by token keys: a screening scores only the names that share
 * a key with the query (a word's first or last three letters), not every entry of the list.
 */
export class NameIndex {
  private readonly entries: IndexedEntry[] = [];
  private readonly names: IndexedName[] = [];
  private readonly postings = new Map<string, number[]>();

  constructor(entries: readonly ListEntry[]) {
    for (const e of entries) {
      const entryNo = this.entries.length;
      this.entries.push({
        id: e.id,
        kind: e.kind,
        primary: e.names[0]?.name ?? '',
        dobs: e.dobs,
        countries: e.countries,
      });
      const seen = new Set<string>();
      for (const n of e.names) {
        const tokens = normalizeTokens(n.name);
        const key = tokens.join(' ');
        if (tokens.length === 0 || seen.has(key)) continue;
        seen.add(key);
        const nameNo = this.names.length;
        this.names.push({ entry: entryNo, name: n.name, tokens, strength: n.strength });
        const keys = new Set([
          ...tokens.filter((t) => t.length > 1).flatMap(keysOf),
          ...joinedRuns(tokens).flatMap((j) => keysOf(j.run)),
        ]);
        for (const k of keys) {
          const list = this.postings.get(k);
          if (list) list.push(nameNo);
          else this.postings.set(k, [nameNo]);
        }
      }
    }
  }

  get entryCount(): number {
    return this.entries.length;
  }

  get nameCount(): number {
    return this.names.length;
  }

  /** How many names a query would score (for the bench and tests). */
  candidateCount(name: string): number {
    return this.candidates(normalizeTokens(name)).size;
  }

  /**
   * The names sharing a key with the query; with two or more words in the query, only those sharing
   * keys of two different words (a name matching one word of the query cannot reach a threshold:
   * see tokenSetScore), unless the name itself has a single word.
   */
  private candidates(tokens: readonly string[]): Set<number> {
    const words = tokens.filter((t) => t.length > 1);
    const hits = new Map<number, number>();
    const lookup = (keys: string[], bit: number) => {
      for (const k of new Set(keys))
        for (const n of this.postings.get(k) ?? []) hits.set(n, (hits.get(n) ?? 0) | bit);
    };
    for (let w = 0; w < words.length; w++) lookup(keysOf(words[w]!), 1 << Math.min(w, 30));
    // A joined run counts as its first word: it must still meet another word of the query.
    for (const j of joinedRuns(words)) lookup(keysOf(j.run), 1 << Math.min(j.first, 30));
    const out = new Set<number>();
    for (const [n, mask] of hits)
      if (words.length < 2 || (mask & (mask - 1)) !== 0 || this.names[n]!.tokens.length === 1) out.add(n);
    return out;
  }

  /** The best-scoring entry for the party at or above `threshold` (0-100), or null. */
  best(party: ScreenParty, threshold: number): Candidate | null {
    return this.matches(party, threshold, 1)[0] ?? null;
  }

  /**
   * Every entry matching the party at or above `threshold` (0-100), each with its best-scoring name,
   * best first, at most `limit`: two entries of the same name (another person designated later)
   * are two hits, so clearing one never hides the other.
   */
  matches(party: ScreenParty, threshold: number, limit: number): Candidate[] {
    const tokens = normalizeTokens(party.name);
    if (tokens.length === 0) return [];
    const byEntry = new Map<number, Candidate>();
    for (const n of this.candidates(tokens)) {
      const name = this.names[n]!;
      const entry = this.entries[name.entry]!;
      const base = tokenSetScore(tokens, name.tokens);
      if (base === 0) continue;
      const dob = dobCheck(party.dateOfBirth, entry.dobs);
      const country = countryCheck(party.country, entry.countries);
      // OFAC FAQ 124: a weak AKA alone is no hit; it counts when other identifiers corroborate it.
      if (name.strength === 'weak' && dob !== 'agrees' && country !== 'agrees') continue;
      const kind = kindAdjustment(party.type, entry.kind);
      // A mismatch never lowers a name match below the threshold (OFAC FAQ 5: identifiers judge a
      // hit after it is found; list dates are often approximate): only agreement adds, and only a
      // person against a vessel or aircraft rules the entry out.
      if (kind <= -1) continue;
      const score = Math.round(
        Math.min(
          1,
          base + (dob === 'agrees' ? DOB_AGREES : 0) + (country === 'agrees' ? COUNTRY_AGREES : 0),
        ) * 100,
      );
      if (score < threshold) continue;
      const best = byEntry.get(name.entry);
      if (!best || score > best.score || (score === best.score && name.strength === 'primary')) {
        byEntry.set(name.entry, {
          entryId: entry.id,
          entryName: entry.primary,
          matchedName: name.name,
          strength: name.strength,
          score,
          dobCheck: dob,
          countryCheck: country,
        });
      }
    }
    return [...byEntry.entries()]
      .sort(([ea, a], [eb, b]) => b.score - a.score || ea - eb)
      .slice(0, limit)
      .map(([, c]) => c);
  }
}

/** A person against an entity (or the reverse) is less likely the same party; vessels are never persons. */
function kindAdjustment(type: ScreenParty['type'], kind: EntryKind): number {
  if (!type || kind === 'other') return 0;
  if (type === 'natural') return kind === 'individual' ? 0 : kind === 'entity' ? -0.05 : -1;
  return kind === 'individual' ? -0.05 : 0;
}
