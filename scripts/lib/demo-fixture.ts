/**
 * fixtures/demo.json (contract §24) is this module's output: the demo hotel's
 * reference data, written out here, and its people from the seeded generator
 * (scripts/lib/people-generator.ts). `npm run fixtures:demo` writes it; a unit
 * test generates it again and compares the bytes with the committed file.
 *
 * The ids of the reference data are the ones the README's examples and the tests use
 * (locations hq/restaurant/terrace/spa, payout fields 41-45, ...).
 */
import { generatePeople, type PeopleSetup, type Random } from './people-generator';
import type { Locale } from '../../src/domain/business';

type Json = Record<string, unknown>;

/** The fixed seed and the day the histories are told from: leavers before it, future starters after it. */
export const DEMO_SEED = 20261201;
export const DEMO_ANCHOR = '2026-12-01';
export const DEMO_EMPLOYEES = 120;
export const DEMO_APPLICATIONS = 600;

const names = (de: string, it: string, en: string): Json => ({ name_de: de, name_it: it, name_en: en });

/** Payout field definitions of every type of seed-api.md, ids 41-45 as before, 46.. for the others. */
const PAYOUT_FIELDS: Json[] = [
  {
    id: '41',
    type_of: 'select_single',
    ...names('Tarif', 'Tariffa', 'Pay scale'),
    hint_de: null,
    placeholder_de: null,
    values: [
      { id: 'a', label_de: 'A', label_it: 'A', label_en: 'A' },
      { id: 'b', label_de: 'B', label_it: 'B', label_en: 'B' },
    ],
  },
  { id: '42', type_of: 'gross', ...names('Brutto', 'Lordo', 'Gross') },
  { id: '43', type_of: 'net', ...names('Netto', 'Netto', 'Net') },
  { id: '44', type_of: 'currency', ...names('Trinkgeld', 'Mance', 'Tips') },
  { id: '45', type_of: 'worked_hours', ...names('Arbeitsstunden', 'Ore lavorate', 'Worked hours') },
  {
    id: '46',
    type_of: 'text',
    ...names('Lohnkonto', 'Conto paga', 'Payroll account'),
    hint_de: 'Wie in der Buchhaltung',
    hint_it: 'Come in contabilità',
    hint_en: 'As in accounting',
    placeholder_de: 'z. B. 4711',
    placeholder_it: 'es. 4711',
    placeholder_en: 'e.g. 4711',
  },
  { id: '47', type_of: 'integer', ...names('Urlaubstage', 'Giorni di ferie', 'Vacation days') },
  { id: '48', type_of: 'float', ...names('Zuschlagsfaktor', 'Fattore maggiorazione', 'Surcharge factor') },
  {
    id: '49',
    type_of: 'select_multiple',
    ...names('Zulagen', 'Indennità', 'Allowances'),
    values: [
      { id: 'night', label_de: 'Nacht', label_it: 'Notturno', label_en: 'Night' },
      { id: 'sunday', label_de: 'Sonntag', label_it: 'Domenica', label_en: 'Sunday' },
      { id: 'holiday', label_de: 'Feiertag', label_it: 'Festivo', label_en: 'Public holiday' },
    ],
  },
  {
    id: '50',
    type_of: 'select_radio',
    ...names('Auszahlung', 'Pagamento', 'Payment'),
    values: [
      { id: 'transfer', label_de: 'Überweisung', label_it: 'Bonifico', label_en: 'Bank transfer' },
      { id: 'cash', label_de: 'Bar', label_it: 'Contanti', label_en: 'Cash' },
    ],
  },
  { id: '51', type_of: 'checkbox', ...names('13. Gehalt', 'Tredicesima', '13th salary') },
  { id: '52', type_of: 'date', ...names('Auszahlungstag', 'Data di pagamento', 'Payout date') },
  { id: '53', type_of: 'datetime', ...names('Freigegeben am', 'Approvato il', 'Approved at') },
  { id: '54', type_of: 'notes', ...names('Notizen', 'Note', 'Notes') },
  {
    id: '55',
    type_of: 'complementary_bonus',
    ...names('Ergänzungsprämie', 'Premio integrativo', 'Complementary bonus'),
  },
  { id: '56', type_of: 'special_bonus', ...names('Sonderprämie', 'Premio speciale', 'Special bonus') },
  { id: '57', type_of: 'pay_per_hour', ...names('Stundenlohn', 'Paga oraria', 'Pay per hour') },
  {
    id: '58',
    type_of: 'pay_per_hour_gross_total',
    ...names('Stundenlohn brutto gesamt', 'Totale lordo orario', 'Hourly gross total'),
  },
  { id: '59', type_of: 'sickness_hours', ...names('Krankenstunden', 'Ore di malattia', 'Sickness hours') },
  { id: '60', type_of: 'accident_hours', ...names('Unfallstunden', 'Ore di infortunio', 'Accident hours') },
  { id: '61', type_of: 'overtime_hours', ...names('Überstunden', 'Ore di straordinario', 'Overtime hours') },
  {
    id: '62',
    type_of: 'vacation_hours_accumulated_from_previous_year',
    ...names('Resturlaub Vorjahr', 'Ferie residue anno precedente', 'Vacation carried over'),
  },
  {
    id: '63',
    type_of: 'vacation_hours_yearly',
    ...names('Urlaubsstunden pro Jahr', 'Ore di ferie annue', 'Yearly vacation hours'),
  },
  { id: '64', type_of: 'vacation_hours_used', ...names('Verbrauchter Urlaub', 'Ferie godute', 'Vacation used') },
  { id: '65', type_of: 'vacation_hours_remaining', ...names('Resturlaub', 'Ferie residue', 'Vacation remaining') },
  {
    id: '66',
    type_of: 'vacation_hours_used_in_month',
    ...names('Urlaub im Monat', 'Ferie nel mese', 'Vacation used this month'),
  },
];

const REFERENCE = {
  business: {
    id: 'demo',
    name: 'Hotel Alpenblick',
    locales: ['de', 'it', 'en'],
    timezone: 'Europe/Rome',
    application_retention_days: 365,
  },
  employee_statuses: [
    { id: 'active', ...names('Aktiv', 'Attivo', 'Active'), default: true },
    { id: 'on-leave', ...names('Karenz', 'Aspettativa', 'On leave') },
    { id: 'former', ...names('Ausgeschieden', 'Cessato', 'Former') },
  ],
  application_statuses: [
    { id: 'new', ...names('Neu', 'Nuova', 'New'), default: true },
    { id: 'interview', ...names('Gespräch', 'Colloquio', 'Interview') },
    { id: 'hired', ...names('Eingestellt', 'Assunto', 'Hired') },
    { id: 'rejected', ...names('Abgelehnt', 'Respinta', 'Rejected') },
  ],
  departments: [
    { id: 'kitchen', ...names('Küche', 'Cucina', 'Kitchen') },
    { id: 'service', ...names('Service', 'Sala', 'Service') },
    { id: 'reception', ...names('Rezeption', 'Ricevimento', 'Front desk') },
    { id: 'housekeeping', ...names('Hauswirtschaft', 'Housekeeping', 'Housekeeping') },
    { id: 'spa-wellness', ...names('Spa & Wellness', 'Spa & benessere', 'Spa & wellness') },
    { id: 'administration', ...names('Verwaltung', 'Amministrazione', 'Administration') },
  ],
  job_openings: [
    { id: 'cook-2026', ...names('Koch/Köchin', 'Cuoco/a', 'Cook') },
    { id: 'waiter-2026', ...names('Kellner/in', 'Cameriere/a', 'Waiter') },
    { id: 'receptionist-2026', ...names('Rezeptionist/in', 'Receptionist', 'Receptionist') },
    { id: 'spa-therapist-2027', ...names('Masseur/in', 'Massaggiatore/trice', 'Spa therapist') },
    { id: 'room-attendant-2027', ...names('Zimmermädchen/-bursche', 'Cameriere/a ai piani', 'Room attendant') },
  ],
  locations: [
    {
      id: 'hq',
      parent_id: null,
      ...names('Zentrale', 'Sede', 'Head office'),
      public_name_de: 'Hotel Alpenblick',
      public_name_it: 'Hotel Alpenblick',
      public_name_en: 'Hotel Alpenblick',
      country: 'IT',
      region_de: 'Südtirol',
      region_it: 'Alto Adige',
      region_en: 'South Tyrol',
      city_de: 'Bozen',
      city_it: 'Bolzano',
      city_en: 'Bolzano',
      postal_code: '39100',
      street_de: 'Hauptstraße 1',
      street_it: 'Via Principale 1',
      street_en: 'Hauptstraße 1',
      is_sub_business: false,
    },
    {
      id: 'restaurant',
      parent_id: 'hq',
      ...names('Restaurant', 'Ristorante', 'Restaurant'),
      country: 'IT',
      city_de: 'Bozen',
      city_it: 'Bolzano',
      city_en: 'Bolzano',
      postal_code: '39100',
      is_sub_business: false,
    },
    { id: 'terrace', parent_id: 'restaurant', ...names('Terrasse', 'Terrazza', 'Terrace'), is_sub_business: false },
    {
      id: 'spa',
      parent_id: 'hq',
      ...names('Spa', 'Spa', 'Spa'),
      public_name_de: 'Alpenblick Spa',
      public_name_it: 'Alpenblick Spa',
      public_name_en: 'Alpenblick Spa',
      is_sub_business: true,
      sub_business_title_de: 'Alpenblick Spa GmbH',
      sub_business_title_it: 'Alpenblick Spa Srl',
      sub_business_title_en: 'Alpenblick Spa Ltd',
    },
  ],
  employee_payout_fields: PAYOUT_FIELDS,
  employee_fields: [
    { id: '12', type_of: 'text', ...names('Schuhgröße', 'Numero di scarpe', 'Shoe size'), required: false },
    {
      id: '13',
      type_of: 'select_multiple',
      ...names('Sprachen', 'Lingue', 'Languages'),
      required: false,
      values: [
        { id: 'de', label_de: 'Deutsch', label_it: 'Tedesco', label_en: 'German' },
        { id: 'it', label_de: 'Italienisch', label_it: 'Italiano', label_en: 'Italian' },
        { id: 'en', label_de: 'Englisch', label_it: 'Inglese', label_en: 'English' },
      ],
    },
    {
      id: '14',
      type_of: 'date',
      ...names('Führerschein seit', 'Patente dal', 'Driving licence since'),
      required: false,
    },
  ],
  employee_job_fields: [
    { id: '21', type_of: 'currency', ...names('Stundenlohn', 'Paga oraria', 'Hourly wage'), required: false },
    { id: '22', type_of: 'checkbox', ...names('Saisonal', 'Stagionale', 'Seasonal'), required: false },
  ],
  application_fields: [
    { id: '31', type_of: 'text', ...names('Motivation', 'Motivazione', 'Motivation'), required: false },
    {
      id: '32',
      type_of: 'integer',
      ...names('Jahre Erfahrung', 'Anni di esperienza', 'Years of experience'),
      required: false,
    },
  ],
};

/** Values that read as what the demo's custom fields mean, instead of a generic value of their type. */
const DEMO_VALUES: Record<string, (r: Random) => unknown> = {
  '12': (r) => String(r.int(36, 46)),
  '21': (r) => r.int(1100, 2400) / 100,
  '31': (r) =>
    r.pick([
      'Ich arbeite gern im Team und liebe die Berge.',
      'Suche eine Saisonstelle für den Sommer.',
      'Mi piacerebbe crescere in un hotel di qualità.',
      'Ho esperienza in cucina tradizionale altoatesina.',
      'I would love to work a season in the Dolomites.',
      'Looking for a full-time position with accommodation.',
    ]),
  '32': (r) => r.int(0, 25),
};

/** What a generated person may point to, from a fixture's lists. */
export function setupOfFixture(fixture: {
  business: { locales: readonly string[] };
  [list: string]: unknown;
}): PeopleSetup {
  const list = (key: string): Json[] => (Array.isArray(fixture[key]) ? (fixture[key] as Json[]) : []);
  const ids = (key: string): string[] => list(key).map((e) => String(e.id));
  return {
    locales: fixture.business.locales as Locale[],
    employee_status_ids: ids('employee_statuses'),
    application_status_ids: ids('application_statuses'),
    department_ids: ids('departments'),
    job_opening_ids: ids('job_openings'),
    location_ids: ids('locations'),
    employee_fields: list('employee_fields') as never,
    employee_job_fields: list('employee_job_fields') as never,
    application_fields: list('application_fields') as never,
  };
}

/** The demo fixture as an object (reference data + generated people). */
export function demoFixture(): Json {
  const people = generatePeople(setupOfFixture(REFERENCE), {
    seed: DEMO_SEED,
    anchor: DEMO_ANCHOR,
    employees: DEMO_EMPLOYEES,
    applications: DEMO_APPLICATIONS,
    customValues: DEMO_VALUES,
  });
  return { ...REFERENCE, ...people };
}

/**
 * The file's text: each list entry on a line of its own, so a change to the
 * generator shows as a readable diff of the records it changed.
 */
export function fixtureText(fixture: Json): string {
  const parts = Object.entries(fixture).map(([key, value]) => {
    if (!Array.isArray(value)) return `  ${JSON.stringify(key)}: ${JSON.stringify(value)}`;
    if (value.length === 0) return `  ${JSON.stringify(key)}: []`;
    return `  ${JSON.stringify(key)}: [\n${value.map((e) => `    ${JSON.stringify(e)}`).join(',\n')}\n  ]`;
  });
  return `{\n${parts.join(',\n')}\n}\n`;
}

export const demoFixtureText = (): string => fixtureText(demoFixture());
