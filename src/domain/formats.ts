/** Pure value checks shared by the JSON Schema formats and the domain rules. */

/** ISO 3166-1 alpha-2 codes assigned today (plus XK). */
export const COUNTRY_CODES: readonly string[] = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
  'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
  'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
  'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
  'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW'
).split(' ');
const COUNTRY_SET: ReadonlySet<string> = new Set(COUNTRY_CODES);

/** ISO 3166-1 alpha-2, upper case (plus XK, in common use for Kosovo). */
export const isCountryCode = (value: string): boolean => COUNTRY_SET.has(value);

/** IBAN without spaces, upper-cased; the form we store and return. */
export const normalizeIban = (value: string): string => value.replace(/\s+/g, '').toUpperCase();

/** ISO 13616 mod-97 checksum; spaces allowed, any case. */
export function isIban(value: string): boolean {
  const iban = normalizeIban(value);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(iban) || !isCountryCode(iban.slice(0, 2))) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const digits = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  }
  return remainder === 1;
}

/** 8 or 11 character BIC: bank(4 letters) country(2) location(2) [branch(3)]. */
export const isBic = (value: string): boolean =>
  /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(value) && isCountryCode(value.slice(4, 6));

/** Absolute http(s) URL with a host. */
export function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** YYYY-MM-DD that is a real calendar day. */
export function isDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= days;
}

/**
 * A query timestamp: ISO 8601 with `Z` or an offset, optional fractional
 * seconds, or a bare date (its start in UTC). Returns epoch ms or undefined.
 */
export function parseTimestamp(value: string): number | undefined {
  if (isDate(value)) return Date.parse(`${value}T00:00:00.000Z`);
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i.exec(value);
  if (!m || !isDate(m[1] ?? '')) return undefined;
  const [hh, mm, ss] = [Number(m[2]), Number(m[3]), Number(m[4] ?? '0')];
  if (hh > 23 || mm > 59 || ss > 59) return undefined;
  const offset = (m[6] ?? 'Z').toUpperCase();
  if (offset !== 'Z') {
    const om = /^([+-])(\d{2}):?(\d{2})$/.exec(offset);
    if (!om || Number(om[2]) > 23 || Number(om[3]) > 59) return undefined;
  }
  const frac = m[5] ? m[5].slice(0, 4).padEnd(4, '0') : '.000';
  const normalized = `${m[1]}T${m[2]}:${m[3]}:${m[4] ?? '00'}${frac}${offset === 'Z' ? 'Z' : offset.length === 5 ? `${offset.slice(0, 3)}:${offset.slice(3)}` : offset}`;
  const ms = Date.parse(normalized);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The response form of a datetime: UTC with milliseconds. */
export const toIsoMillis = (ms: number): string => new Date(ms).toISOString();
