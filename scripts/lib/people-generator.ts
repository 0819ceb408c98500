/**
 * Generated people for the demo business and for sandboxes (contract §24):
 * employees with job histories, their jobs and job applications, as fixture
 * records (the rows of a bulk import, contract §22, keyed by `external_id`).
 *
 * Pure and deterministic: the same setup, seed and anchor day give the same
 * records (a seeded PRNG, no clock), so `npm run fixtures:demo` writes the same
 * bytes every time. What it generates is valid for the business it is given:
 * only its statuses, departments, locations, job openings and locales, and a
 * value of the right type for each of its custom fields (every required one).
 */
import { isIban } from '../../src/domain/formats';
import type { Locale } from '../../src/domain/business';

type Json = Record<string, unknown>;

/** The reference data a generated person may point to (a fixture's lists, or a business's config). */
export interface PeopleSetup {
  readonly locales: readonly Locale[];
  readonly employee_status_ids: readonly string[];
  readonly application_status_ids: readonly string[];
  readonly department_ids: readonly string[];
  readonly job_opening_ids: readonly string[];
  readonly location_ids: readonly string[];
  readonly employee_fields: readonly FieldDef[];
  readonly employee_job_fields: readonly FieldDef[];
  readonly application_fields: readonly FieldDef[];
}

export interface FieldDef {
  readonly id: string;
  readonly type_of: string;
  readonly required?: boolean;
  readonly values?: readonly { id: string }[] | null;
}

export interface PeopleOptions {
  readonly seed: number;
  /** The day the histories are told from (leavers before it, future starters after it), YYYY-MM-DD. */
  readonly anchor: string;
  readonly employees: number;
  readonly applications: number;
  /** Put before every external id (a sandbox's generation: `g2-emp-0001`). */
  readonly externalIdPrefix?: string;
  /** Values for particular custom fields (by id), instead of a generic value of the field's type. */
  readonly customValues?: Readonly<Record<string, (r: Random) => unknown>>;
}

export interface People {
  readonly employees: Json[];
  readonly employee_jobs: Json[];
  readonly applications: Json[];
}

// ---------------------------------------------------------------------------
// Seeded PRNG: mulberry32 (public domain). Six lines with a fixed output for a
// fixed seed, which no library version can change under the committed file.
// ---------------------------------------------------------------------------

export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(list: readonly T[]): T {
    if (list.length === 0) throw new Error('pick from an empty list');
    return list[Math.floor(this.next() * list.length)] as T;
  }
  digits(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String(this.int(0, 9));
    return s;
  }
  letters(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(65 + this.int(0, 25));
    return s;
  }
}

// ---------------------------------------------------------------------------
// Where people live: German-, Italian- and English-speaking areas, with real
// towns and their postal codes.
// ---------------------------------------------------------------------------

type Language = 'de' | 'it' | 'en';

interface Town {
  readonly city: string;
  readonly postal: string;
  readonly region: string;
  readonly country: string;
  readonly phone: string;
}

interface Area {
  readonly language: Language;
  readonly weight: number;
  readonly towns: readonly Town[];
  readonly streets: readonly string[];
  /** `{street} {n}` or `{n} {street}`. */
  readonly numberFirst?: boolean;
  readonly nationality: string;
}

const AREAS: readonly Area[] = [
  {
    language: 'de',
    weight: 40,
    towns: [
      { city: 'Bozen', postal: '39100', region: 'Südtirol', country: 'IT', phone: '+39 0471' },
      { city: 'Meran', postal: '39012', region: 'Südtirol', country: 'IT', phone: '+39 0473' },
      { city: 'Brixen', postal: '39042', region: 'Südtirol', country: 'IT', phone: '+39 0472' },
      { city: 'Bruneck', postal: '39031', region: 'Südtirol', country: 'IT', phone: '+39 0474' },
      { city: 'Lana', postal: '39011', region: 'Südtirol', country: 'IT', phone: '+39 0473' },
      { city: 'Innsbruck', postal: '6020', region: 'Tirol', country: 'AT', phone: '+43 512' },
      { city: 'Lienz', postal: '9900', region: 'Tirol', country: 'AT', phone: '+43 4852' },
      { city: 'Salzburg', postal: '5020', region: 'Salzburg', country: 'AT', phone: '+43 662' },
      { city: 'München', postal: '80331', region: 'Bayern', country: 'DE', phone: '+49 89' },
      { city: 'Rosenheim', postal: '83022', region: 'Bayern', country: 'DE', phone: '+49 8031' },
      { city: 'Chur', postal: '7000', region: 'Graubünden', country: 'CH', phone: '+41 81' },
    ],
    streets: [
      'Hauptstraße',
      'Bahnhofstraße',
      'Kirchgasse',
      'Lauben',
      'Dorfstraße',
      'Wiesenweg',
      'Obstplatz',
      'Sonnenweg',
      'Schulstraße',
      'Brennerstraße',
      'Mühlgasse',
      'Talfergasse',
    ],
    nationality: 'Italienisch',
  },
  {
    language: 'it',
    weight: 35,
    towns: [
      { city: 'Bolzano', postal: '39100', region: 'Alto Adige', country: 'IT', phone: '+39 0471' },
      { city: 'Trento', postal: '38122', region: 'Trentino', country: 'IT', phone: '+39 0461' },
      { city: 'Rovereto', postal: '38068', region: 'Trentino', country: 'IT', phone: '+39 0464' },
      { city: 'Verona', postal: '37121', region: 'Veneto', country: 'IT', phone: '+39 045' },
      { city: 'Belluno', postal: '32100', region: 'Veneto', country: 'IT', phone: '+39 0437' },
      { city: 'Milano', postal: '20121', region: 'Lombardia', country: 'IT', phone: '+39 02' },
      { city: 'Riva del Garda', postal: '38066', region: 'Trentino', country: 'IT', phone: '+39 0464' },
      { city: 'Lugano', postal: '6900', region: 'Ticino', country: 'CH', phone: '+41 91' },
    ],
    streets: [
      'Via Roma',
      'Via Dante',
      'Corso Italia',
      'Via Garibaldi',
      'Piazza Walther',
      'Via della Mostra',
      'Via Mazzini',
      'Via Manci',
      'Via Cavour',
      'Viale Trieste',
      'Via dei Portici',
    ],
    nationality: 'Italiana',
  },
  {
    language: 'en',
    weight: 25,
    towns: [
      { city: 'London', postal: 'SE1 7PB', region: 'Greater London', country: 'GB', phone: '+44 20' },
      { city: 'Manchester', postal: 'M1 1AE', region: 'Greater Manchester', country: 'GB', phone: '+44 161' },
      { city: 'Edinburgh', postal: 'EH1 1YZ', region: 'Scotland', country: 'GB', phone: '+44 131' },
      { city: 'Bristol', postal: 'BS1 4DJ', region: 'South West England', country: 'GB', phone: '+44 117' },
      { city: 'Dublin', postal: 'D02 X285', region: 'Leinster', country: 'IE', phone: '+353 1' },
      { city: 'Cork', postal: 'T12 W8KD', region: 'Munster', country: 'IE', phone: '+353 21' },
    ],
    streets: [
      'High Street',
      'Station Road',
      'Church Lane',
      'Victoria Road',
      'Mill Lane',
      'Queen Street',
      'Park Avenue',
      'King Street',
      'Grafton Street',
    ],
    numberFirst: true,
    nationality: 'British',
  },
];

const FIRST_NAMES: Record<Language, { female: readonly string[]; male: readonly string[] }> = {
  de: {
    female: [
      'Anna',
      'Maria',
      'Lena',
      'Sophia',
      'Julia',
      'Katharina',
      'Magdalena',
      'Theresa',
      'Verena',
      'Sabine',
      'Elisabeth',
      'Hannah',
      'Barbara',
      'Johanna',
      'Miriam',
    ],
    male: [
      'Lukas',
      'Jakob',
      'Simon',
      'Matthias',
      'Florian',
      'Andreas',
      'Thomas',
      'Michael',
      'Stefan',
      'Martin',
      'Josef',
      'Manuel',
      'Peter',
      'Georg',
      'Tobias',
    ],
  },
  it: {
    female: [
      'Giulia',
      'Chiara',
      'Francesca',
      'Sara',
      'Martina',
      'Elena',
      'Alessia',
      'Valentina',
      'Federica',
      'Silvia',
      'Giorgia',
      'Laura',
      'Paola',
      'Beatrice',
      'Anna',
    ],
    male: [
      'Marco',
      'Luca',
      'Alessandro',
      'Matteo',
      'Andrea',
      'Francesco',
      'Davide',
      'Stefano',
      'Giovanni',
      'Paolo',
      'Simone',
      'Riccardo',
      'Federico',
      'Lorenzo',
      'Nicola',
    ],
  },
  en: {
    female: [
      'Emily',
      'Olivia',
      'Sophie',
      'Charlotte',
      'Grace',
      'Amelia',
      'Hannah',
      'Siobhan',
      'Aoife',
      'Lucy',
      'Jessica',
      'Chloe',
      'Rebecca',
      'Niamh',
      'Eleanor',
    ],
    male: [
      'James',
      'Oliver',
      'Jack',
      'Harry',
      'George',
      'Thomas',
      'William',
      'Daniel',
      'Liam',
      'Conor',
      'Samuel',
      'Edward',
      'Ciarán',
      'Owen',
      'Matthew',
    ],
  },
};

const LAST_NAMES: Record<Language, readonly string[]> = {
  de: [
    'Gruber',
    'Pichler',
    'Mair',
    'Hofer',
    'Kofler',
    'Thaler',
    'Oberhofer',
    'Plattner',
    'Egger',
    'Moser',
    'Huber',
    'Wieser',
    'Rainer',
    'Unterholzner',
    'Pircher',
    'Brunner',
    'Gasser',
    'Obexer',
    'Steiner',
    'Schwienbacher',
    'Müller',
    'Weißensteiner',
  ],
  it: [
    'Rossi',
    'Bianchi',
    'Ferrari',
    'Esposito',
    'Romano',
    'Colombo',
    'Ricci',
    'Marino',
    'Greco',
    'Bruno',
    'Gallo',
    'Conti',
    'De Luca',
    'Costa',
    'Fontana',
    'Moretti',
    'Zanella',
    'Dalla Valle',
    "D'Angelo",
    'Pedrotti',
  ],
  en: [
    'Smith',
    'Jones',
    'Taylor',
    'Brown',
    'Williams',
    'Wilson',
    'Johnson',
    'Davies',
    'Robinson',
    'Wright',
    'Thompson',
    'Murphy',
    "O'Brien",
    'Kelly',
    'Walsh',
    'Campbell',
    'Byrne',
    'MacDonald',
  ],
};

/** BICs of banks of each country (format-valid; the IBAN and the BIC name the same country). */
const BANKS: Record<string, readonly string[]> = {
  IT: ['RZSBIT21', 'CRBZIT2B', 'UNCRITMM', 'BCITITMM', 'BPMOIT22', 'CCRTIT2T'],
  AT: ['RZTIAT22', 'SPIHAT22', 'GIBAATWW'],
  DE: ['BYLADEMM', 'DEUTDEMM', 'COBADEFF'],
  CH: ['GKCCCHGG', 'UBSWCHZH', 'POFICHBE'],
  GB: ['BARCGB22', 'LOYDGB2L', 'NWBKGB2L'],
  IE: ['AIBKIE2D', 'BOFIIE2D'],
};

const NATIONALITY: Record<string, Record<Language, string>> = {
  IT: { de: 'Italienisch', it: 'Italiana', en: 'Italian' },
  AT: { de: 'Österreichisch', it: 'Austriaca', en: 'Austrian' },
  DE: { de: 'Deutsch', it: 'Tedesca', en: 'German' },
  CH: { de: 'Schweizerisch', it: 'Svizzera', en: 'Swiss' },
  GB: { de: 'Britisch', it: 'Britannica', en: 'British' },
  IE: { de: 'Irisch', it: 'Irlandese', en: 'Irish' },
};

/** Job titles by department id (the demo's); other departments get the generic ones. */
const TITLES: Record<string, Record<Language, readonly string[]>> = {
  kitchen: {
    de: ['Koch', 'Jungkoch', 'Chef de Partie', 'Küchenhilfe', 'Patissier', 'Souschef'],
    it: ['Cuoco', 'Aiuto cuoco', 'Capo partita', 'Lavapiatti', 'Pasticcere', 'Sous-chef'],
    en: ['Cook', 'Commis chef', 'Chef de partie', 'Kitchen porter', 'Pastry chef', 'Sous chef'],
  },
  service: {
    de: ['Kellner', 'Chef de Rang', 'Barkeeper', 'Sommelier', 'Servicehilfe'],
    it: ['Cameriere', 'Chef de rang', 'Barista', 'Sommelier', 'Commis di sala'],
    en: ['Waiter', 'Chef de rang', 'Bartender', 'Sommelier', 'Server'],
  },
  reception: {
    de: ['Rezeptionist', 'Nachtportier', 'Concierge', 'Front Office Manager'],
    it: ['Receptionist', 'Portiere di notte', 'Concierge', 'Front office manager'],
    en: ['Receptionist', 'Night porter', 'Concierge', 'Front office manager'],
  },
  housekeeping: {
    de: ['Zimmermädchen', 'Hausdame', 'Wäscherei'],
    it: ['Cameriera ai piani', 'Governante', 'Lavanderia'],
    en: ['Room attendant', 'Housekeeper', 'Laundry attendant'],
  },
  'spa-wellness': {
    de: ['Masseur', 'Kosmetikerin', 'Spa-Rezeption'],
    it: ['Massaggiatore', 'Estetista', 'Reception spa'],
    en: ['Massage therapist', 'Beautician', 'Spa receptionist'],
  },
  administration: {
    de: ['Buchhaltung', 'Personalverwaltung', 'Einkauf'],
    it: ['Contabilità', 'Amministrazione del personale', 'Acquisti'],
    en: ['Accountant', 'HR administrator', 'Purchasing'],
  },
};
const GENERIC_TITLES: Record<Language, readonly string[]> = {
  de: ['Mitarbeiter', 'Teamleiter', 'Assistenz', 'Aushilfe'],
  it: ['Collaboratore', 'Responsabile di reparto', 'Assistente', 'Aiuto'],
  en: ['Team member', 'Team lead', 'Assistant', 'Helper'],
};
const HEAD_TITLE: Record<Language, string> = { de: 'Abteilungsleitung', it: 'Responsabile', en: 'Head of department' };
const DIRECTOR_TITLE: Record<Language, string> = { de: 'Direktion', it: 'Direzione', en: 'General manager' };

const CLASSIFICATIONS = [
  'CCNL Turismo, livello 2',
  'CCNL Turismo, livello 3',
  'CCNL Turismo, livello 4',
  'CCNL Turismo, livello 5',
  'KV Hotel- und Gastgewerbe, Stufe 2',
  'KV Hotel- und Gastgewerbe, Stufe 3',
  null,
];

const CAMPAIGNS = [
  'instagram-summer-2026',
  'stepstone-winter-2026',
  'indeed-2026',
  'job-fair-bolzano-2026',
  'referral',
  'website',
];

// ---------------------------------------------------------------------------
// Small value builders
// ---------------------------------------------------------------------------

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

const DAY_MS = 24 * 60 * 60 * 1000;
const dayNumber = (date: string): number => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
const dateOf = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** ASCII for e-mail local parts. */
function slug(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');
}

/** A valid IBAN of the country (ISO 13616 check digits over a random domestic account). */
function ibanOf(r: Random, country: string): string {
  const bban: Record<string, () => string> = {
    IT: () => `${r.letters(1)}${r.digits(10)}${r.digits(12)}`,
    DE: () => r.digits(18),
    AT: () => r.digits(16),
    CH: () => r.digits(17),
    GB: () => `${r.letters(4)}${r.digits(14)}`,
    IE: () => `${r.letters(4)}${r.digits(14)}`,
  };
  const body = (bban[country] ?? bban.IT!)();
  const cc = bban[country] ? country : 'IT';
  const numeric = `${body}${cc}00`.replace(/[A-Z]/g, (ch) => String(ch.charCodeAt(0) - 55));
  let remainder = 0;
  for (const d of numeric) remainder = (remainder * 10 + Number(d)) % 97;
  const iban = `${cc}${pad(98 - remainder, 2)}${body}`;
  if (!isIban(iban)) throw new Error(`generated an invalid IBAN ${iban}`);
  return iban;
}

function taxNumberOf(r: Random, country: string, last: string, first: string): string {
  if (country === 'IT') {
    const cons = (s: string): string => `${slug(s).replace(/[aeiou]/g, '')}xxx`.slice(0, 3).toUpperCase();
    return `${cons(last)}${cons(first)}${r.digits(2)}${r.pick(['A', 'B', 'C', 'D', 'E', 'H', 'L', 'M', 'P', 'R', 'S', 'T'])}${r.digits(2)}${r.letters(1)}${r.digits(3)}${r.letters(1)}`;
  }
  if (country === 'GB')
    return `${r.letters(2)} ${r.digits(2)} ${r.digits(2)} ${r.digits(2)} ${r.pick(['A', 'B', 'C', 'D'])}`;
  if (country === 'IE') return `${r.digits(7)}${r.letters(1)}`;
  return r.digits(11);
}

function phoneOf(r: Random, town: Town): string {
  return `${town.phone} ${r.digits(3)} ${r.digits(4)}`;
}

/** A value of a custom field's type (contract §9). */
function customValue(r: Random, def: FieldDef, anchor: string): unknown {
  const values = (def.values ?? []).map((v) => v.id);
  switch (def.type_of) {
    case 'text':
      return r.pick(['ja', 'nein', 'siehe Akte', 'vedi note', 'see notes', 'A', 'B']);
    case 'currency':
      return Math.round(r.int(1000, 400000)) / 100;
    case 'integer':
      return r.int(0, 40);
    case 'float':
      return r.int(0, 10000) / 100;
    case 'select_single':
    case 'select_radio':
      return r.pick(values);
    case 'select_multiple':
      return values.filter((_, i) => i === 0 || r.chance(0.4));
    case 'checkbox':
      return r.chance(0.5);
    case 'date':
      return dateOf(dayNumber(anchor) - r.int(30, 7000));
    case 'datetime':
      return `${dateOf(dayNumber(anchor) - r.int(1, 700))}T${pad(r.int(7, 18), 2)}:${pad(r.int(0, 59), 2)}:00.000Z`;
    default:
      return null;
  }
}

/** Every required custom field, and most optional ones. */
function customValues(r: Random, defs: readonly FieldDef[], options: PeopleOptions, fill: number): Json {
  const out: Json = {};
  for (const def of defs) {
    if (!def.required && !r.chance(fill)) continue;
    const special = options.customValues?.[def.id];
    const value = special ? special(r) : customValue(r, def, options.anchor);
    if (value !== null && !(Array.isArray(value) && value.length === 0)) out[`cf_${def.id}`] = value;
  }
  return out;
}

/** `weight`-weighted pick of an area whose language the business speaks (all areas if none matches). */
function areaFor(r: Random, setup: PeopleSetup): Area {
  const spoken = AREAS.filter((a) => setup.locales.includes(a.language));
  const areas = spoken.length ? spoken : AREAS;
  const total = areas.reduce((s, a) => s + a.weight, 0);
  let x = r.next() * total;
  for (const a of areas) {
    x -= a.weight;
    if (x < 0) return a;
  }
  return areas[areas.length - 1] as Area;
}

interface Person {
  first: string;
  last: string;
  gender: 'male' | 'female' | 'diverse';
  area: Area;
  town: Town;
  language: Locale;
}

function personOf(r: Random, setup: PeopleSetup): Person {
  const area = areaFor(r, setup);
  const roll = r.next();
  const gender = roll < 0.02 ? 'diverse' : roll < 0.52 ? 'female' : 'male';
  const names = FIRST_NAMES[area.language];
  const first = r.pick(
    gender === 'male' ? names.male : gender === 'female' ? names.female : [...names.female, ...names.male],
  );
  const last = r.pick(LAST_NAMES[area.language]);
  const language = setup.locales.includes(area.language) ? area.language : (setup.locales[0] as Locale);
  return { first, last, gender, area, town: r.pick(area.towns), language };
}

function streetOf(r: Random, area: Area): string {
  const street = r.pick(area.streets);
  const n = r.int(1, 120);
  return area.numberFirst ? `${n} ${street}` : `${street} ${n}`;
}

// ---------------------------------------------------------------------------
// Employees and their job histories
// ---------------------------------------------------------------------------

/** What kind of history an employee gets (fixed shares, so every kind is present). */
type Story = 'director' | 'head' | 'current' | 'promoted' | 'leaver' | 'future' | 'overlap' | 'seasonal' | 'hourly';

function storyOf(i: number, heads: number): Story {
  if (i === 0) return 'director';
  if (i <= heads) return 'head';
  const cycle: Story[] = [
    'current',
    'promoted',
    'leaver',
    'current',
    'overlap',
    'hourly',
    'seasonal',
    'current',
    'leaver',
    'future',
    'promoted',
    'current',
  ];
  return cycle[(i - heads - 1) % cycle.length] as Story;
}

interface JobPlan {
  name: string;
  from: number;
  to: number | null;
  time_type: 'full_time' | 'part_time' | 'hourly';
  job_type: 'unlimited' | 'limited' | 'seasonal' | 'apprenticeship' | 'internship';
  percentage: number | null;
  hours: number | null;
  department: string | null;
  location: string | null;
  supervisor: string | null;
}

function titleOf(r: Random, department: string | null, language: Language): string {
  return r.pick((department && TITLES[department]?.[language]) || GENERIC_TITLES[language]);
}

/** Mon..Sun hours of a week of `hours` hours over five or six days. */
function timeTableOf(r: Random, hours: number): number[] {
  const days = r.chance(0.7) ? 5 : 6;
  const perDay = Math.round((hours / days) * 2) / 2;
  const start = r.int(0, 7 - days);
  return Array.from({ length: 7 }, (_, d) => (d >= start && d < start + days ? perDay : 0));
}

/**
 * The demo and sandboxes share this: `options.employees` employees (the first
 * directs, the next few head the departments and supervise the others),
 * 1-3 jobs each, and `options.applications` applications.
 */
export function generatePeople(setup: PeopleSetup, options: PeopleOptions): People {
  const r = new Random(options.seed);
  const anchor = dayNumber(options.anchor);
  const departments = setup.department_ids.length ? [...setup.department_ids] : [null];
  const locations = setup.location_ids.length ? [...setup.location_ids] : [null];
  const statusOf = (wanted: string): string | undefined =>
    setup.employee_status_ids.includes(wanted) ? wanted : undefined;
  const heads = Math.min(departments.filter((d) => d !== null).length, Math.max(0, options.employees - 1));

  const employees: Json[] = [];
  const jobs: Json[] = [];
  const usedEmails = new Set<string>();
  const headOf = new Map<string | null, string>();
  const prefix = options.externalIdPrefix ?? '';
  const director = `${prefix}emp-0001`;

  for (let i = 0; i < options.employees; i++) {
    const externalId = `${prefix}emp-${pad(i + 1, 4)}`;
    const p = personOf(r, setup);
    const story = storyOf(i, heads);
    const department =
      story === 'director'
        ? (departments[departments.length - 1] ?? null)
        : story === 'head'
          ? (departments[i - 1] ?? null)
          : r.pick(departments);
    if (story === 'head') headOf.set(department, externalId);
    const supervisor = story === 'director' ? null : story === 'head' ? director : (headOf.get(department) ?? director);
    const location = r.pick(locations);
    const lang = p.language as Language;

    // Job history, oldest first.
    const plans: JobPlan[] = [];
    const base = (from: number, to: number | null, name: string): JobPlan => ({
      name,
      from,
      to,
      time_type: 'full_time',
      job_type: 'unlimited',
      percentage: 100,
      hours: 40,
      department,
      location,
      supervisor,
    });
    const start = anchor - r.int(60, 3650);
    switch (story) {
      case 'director':
        plans.push(base(anchor - 4000, null, DIRECTOR_TITLE[lang]));
        break;
      case 'head':
        plans.push(base(start - 1500, start - 1, titleOf(r, department, lang)));
        plans.push(base(start, null, HEAD_TITLE[lang]));
        break;
      case 'current':
        plans.push({
          ...base(start, null, titleOf(r, department, lang)),
          ...(r.chance(0.35) ? { time_type: 'part_time', percentage: r.pick([50, 60, 75, 80]), hours: null } : {}),
        });
        if (r.chance(0.15)) plans[0]!.job_type = 'apprenticeship';
        break;
      case 'promoted': {
        const first = start - r.int(200, 900);
        plans.push({ ...base(first, start - 1, titleOf(r, department, lang)), job_type: 'limited' });
        plans.push(base(start, null, titleOf(r, department, lang)));
        break;
      }
      case 'leaver': {
        const end = anchor - r.int(10, 700);
        plans.push({
          ...base(end - r.int(120, 1500), end, titleOf(r, department, lang)),
          job_type: r.pick(['unlimited', 'limited', 'internship'] as const),
        });
        break;
      }
      case 'future': {
        const from = anchor + r.int(14, 120);
        plans.push({
          ...base(from, r.chance(0.5) ? from + r.int(120, 200) : null, titleOf(r, department, lang)),
          job_type: 'limited',
        });
        break;
      }
      case 'overlap': {
        plans.push({
          ...base(start, null, titleOf(r, department, lang)),
          time_type: 'part_time',
          percentage: 50,
          hours: 20,
        });
        const other = r.pick(departments);
        plans.push({
          ...base(start + r.int(0, 60), r.chance(0.5) ? null : anchor + r.int(30, 200), titleOf(r, other, lang)),
          time_type: 'part_time',
          percentage: 40,
          hours: 16,
          department: other,
          location: r.pick(locations),
          supervisor: headOf.get(other) ?? director,
        });
        break;
      }
      case 'seasonal': {
        // Summer seasons, one a year, the last one maybe still running.
        const seasons = r.int(1, 3);
        for (let s = seasons; s >= 1; s--) {
          const from = anchor - 365 * s + r.int(-10, 10);
          plans.push({ ...base(from, from + r.int(120, 170), titleOf(r, department, lang)), job_type: 'seasonal' });
        }
        break;
      }
      case 'hourly':
        plans.push({
          ...base(start, null, titleOf(r, department, lang)),
          time_type: 'hourly',
          percentage: null,
          hours: r.int(6, 20),
        });
        break;
    }
    const active = plans.some((j) => j.from <= anchor && (j.to === null || anchor <= j.to));
    const status =
      (!active && story !== 'future' ? statusOf('former') : undefined) ??
      (active && r.chance(0.06) ? statusOf('on-leave') : undefined) ??
      (active || story === 'future' ? statusOf('active') : undefined);

    let email = `${slug(p.first)}.${slug(p.last)}@example.com`;
    if (usedEmails.has(email)) email = `${slug(p.first)}.${slug(p.last)}${i + 1}@example.com`;
    usedEmails.add(email);
    // Old enough for the first job: 16-45 years then (directors and heads at least 25).
    const senior = story === 'director' || story === 'head';
    const birthday = dateOf(Math.min((plans[0] as JobPlan).from, anchor) - r.int((senior ? 25 : 16) * 365, 45 * 365));
    const employee: Json = {
      external_id: externalId,
      first_name: p.first,
      last_name: p.last,
      gender: p.gender,
      language: p.language,
      ...(status ? { employee_status_id: status } : {}),
      email,
      company_email: r.chance(0.7) ? `${slug(p.first)}.${slug(p.last)}${i + 1}@hotel-alpenblick.example` : null,
      phone: phoneOf(r, p.town),
      company_phone: story === 'director' || story === 'head' ? `+39 0471 555 ${pad(100 + i, 3)}` : null,
      photo_url: r.chance(0.3) ? `https://images.example.com/staff/${externalId}.jpg` : null,
      birthday,
      tax_number: taxNumberOf(r, p.town.country, p.last, p.first),
      employee_number: `A-${pad(i + 1, 4)}`,
      nationality: NATIONALITY[p.town.country]?.[lang] ?? p.area.nationality,
      birthplace: r.pick(p.area.towns).city,
      street: streetOf(r, p.area),
      city: p.town.city,
      postal_code: p.town.postal,
      region: p.town.region,
      country_code: p.town.country,
      iban: ibanOf(r, p.town.country),
      swift: r.pick(BANKS[p.town.country] ?? BANKS.IT!),
      ...customValues(r, setup.employee_fields, options, 0.7),
    };
    employees.push(employee);

    plans.forEach((plan, j) => {
      const hours = plan.hours ?? (plan.percentage !== null ? Math.round(plan.percentage * 0.4 * 10) / 10 : null);
      jobs.push({
        external_id: `${externalId}-job-${j + 1}`,
        employee_external_id: externalId,
        name: plan.name,
        from: dateOf(plan.from),
        to: plan.to === null ? null : dateOf(plan.to),
        notes: r.chance(0.1)
          ? r.pick(['Probezeit 3 Monate', 'Periodo di prova 30 giorni', 'Trial period 3 months'])
          : null,
        time_percentage: plan.time_type === 'hourly' ? null : plan.percentage,
        time_hours: hours,
        time_type: plan.time_type,
        time_table: plan.time_type !== 'hourly' && hours !== null && r.chance(0.5) ? timeTableOf(r, hours) : null,
        classification: r.pick(CLASSIFICATIONS),
        job_type: plan.job_type,
        ...(plan.supervisor ? { supervisor_external_id: plan.supervisor } : {}),
        department_id: plan.department,
        location_id: plan.location,
        ...customValues(r, setup.employee_job_fields, options, 0.6),
      });
    });
  }

  // Applications: over every status, most for a job opening, some speculative, some through a campaign.
  const applications: Json[] = [];
  const statuses = setup.application_status_ids;
  for (let i = 0; i < options.applications; i++) {
    const p = personOf(r, setup);
    // The first few cover every job opening and a speculative one, so even a short run finds each filter's records.
    const openings = setup.job_opening_ids;
    const speculative = openings.length === 0 || i === openings.length || (i > openings.length && r.chance(0.15));
    applications.push({
      external_id: `${prefix}app-${pad(i + 1, 4)}`,
      ...(speculative ? {} : { job_id: i < openings.length ? openings[i] : r.pick(openings) }),
      // Round-robin first, so even a short run covers every status.
      ...(statuses.length ? { application_status_id: i < statuses.length ? statuses[i] : r.pick(statuses) } : {}),
      accept_terms_and_conditions: true,
      accept_archivation: r.chance(0.6),
      language: p.language,
      campaign_id: r.chance(0.55) ? r.pick(CAMPAIGNS) : null,
      first_name: p.first,
      last_name: p.last,
      gender: p.gender,
      email: `${slug(p.first)}.${slug(p.last)}.${i + 1}@example.net`,
      phone: r.chance(0.8) ? phoneOf(r, p.town) : null,
      birthday: r.chance(0.7) ? dateOf(anchor - r.int(17 * 365, 55 * 365)) : null,
      ...customValues(r, setup.application_fields, options, 0.75),
    });
  }
  return { employees, employee_jobs: jobs, applications };
}
