import type { ErrorMessageKey, ErrorMessageParams, FieldMessage, RecordName } from '../../domain/errors';
import { clip } from '../../domain/quote';

/**
 * Every text a client can read in an error body, in each language the API
 * speaks (contract §16): the one place to change or add a translation. Field
 * messages follow rails-i18n; `message` texts of error bodies are ours. The
 * types make a missing key or language a compile error.
 */
export const LANGUAGES = ['en', 'de', 'it'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

export interface Catalogue {
  /** Field messages of 422/400 field maps, by their Rails (en) wording. */
  readonly fields: Readonly<Record<FieldMessage, string>>;
  /** "<record> <id> not found" per record, so each language can inflect it. */
  readonly records: Readonly<Record<RecordName, (id: string) => string>>;
  /** `message` of the error bodies, by key. */
  readonly errors: { readonly [K in ErrorMessageKey]: (params: ErrorMessageParams[K]) => string };
}

/**
 * Ids are shown as JSON strings, so an empty or odd id is still visible and
 * unambiguous, and cut to 100 characters: they are the client's values (contract §2).
 */
const q = (id: string): string => JSON.stringify(clip(id));
/** An import's status in a sentence. */
const STATUS_DE: Readonly<Record<string, string>> = { awaiting_upload: 'wartet auf den Upload', running: 'läuft' };
const STATUS_IT: Readonly<Record<string, string>> = {
  awaiting_upload: 'in attesa del caricamento',
  running: 'in corso',
};
/** One formatter per language, built once: building one costs about 20 µs, a tenth of a 429's CPU in the server. */
const FORMATS = new Map<Language, Intl.NumberFormat>();
const number = (language: Language, value: number): string => {
  let format = FORMATS.get(language);
  if (!format) FORMATS.set(language, (format = new Intl.NumberFormat(language)));
  return format.format(value);
};

const en: Catalogue = {
  fields: {
    "can't be blank": "can't be blank",
    'is invalid': 'is invalid',
    'is not included in the list': 'is not included in the list',
    'has already been taken': 'has already been taken',
    'must be accepted': 'must be accepted',
    'does not exist': 'does not exist',
    'is not a known field': 'is not a known field',
    'must be on or after from': 'must be on or after from',
    'is not allowed': 'is not allowed',
    'is not permitted': 'is not permitted',
    'must be less than or equal to 20': 'must be less than or equal to 20',
  },
  records: {
    employee: (id) => `Employee ${q(id)} not found`,
    employee_job: (id) => `Employee job ${q(id)} not found`,
    application: (id) => `Application ${q(id)} not found`,
    location: (id) => `Location ${q(id)} not found`,
    payout_field: (id) => `Employee payout field ${q(id)} not found`,
    employee_field: (id) => `Employee field ${q(id)} not found`,
    employee_job_field: (id) => `Employee job field ${q(id)} not found`,
    application_field: (id) => `Application field ${q(id)} not found`,
    webhook_subscription: (id) => `Webhook subscription ${q(id)} not found`,
    attachment: (id) => `Attachment ${q(id)} not found`,
    export: (id) => `Export ${q(id)} not found`,
    import: (id) => `Import ${q(id)} not found`,
  },
  errors: {
    invalid_json: () => 'Request body is not valid JSON',
    body_not_object: () => 'Request body must be a JSON object',
    body_too_deep: ({ levels }) => `Request body is nested deeper than ${levels} levels`,
    body_too_wide: ({ keys }) => `Request body has an object with more than ${number('en', keys)} keys`,
    idempotency_key_invalid: () => 'Idempotency-Key must be 1 to 255 printable ASCII characters',
    business_not_set_up: () => 'The business of this token is not set up',
    missing_authorization: () => 'Missing Authorization: Bearer <token> header',
    malformed_authorization: () => 'Authorization header must be "Bearer <token>"',
    unknown_token: () => 'Unknown or revoked token',
    expired_token: () => 'This token has expired',
    insufficient_scope: ({ scope }) => `This token lacks the scope ${scope}`,
    fields_withheld: ({ type }) => `This token's field grant withholds fields of ${type} that this export holds`,
    record_not_found: ({ record, id }) => en.records[record](id),
    route_not_found: ({ method, path }) => `No route for ${clip(`${method} ${path}`)}`,
    not_acceptable: ({ available }) => `This resource is only available as ${available}; check the Accept header`,
    method_not_allowed: ({ allowed }) => `Method not allowed; this path allows ${allowed.join(', ')}`,
    idempotency_key_reused: () =>
      'This Idempotency-Key was already used for another request (another method, path or body)',
    application_erased: () =>
      'The application this Idempotency-Key created has been erased; it is not created again (send a new key to create a new one)',
    subscription_deleted: () =>
      'The webhook subscription this Idempotency-Key created has been deleted; it is not created again (send a new key to subscribe again)',
    import_in_progress: ({ id, status }) =>
      `Import ${q(id)} of this business is ${status}; one import runs at a time (cancel it while it awaits its upload, or wait for it to end)`,
    import_finished: ({ id, status }) => `Import ${q(id)} has ended (${status}); there is nothing to cancel`,
    precondition_failed: () => 'If-Match does not match the current ETag of the record; nothing was written',
    cursor_expired: ({ days }) =>
      `This cursor is older than the change feed's retention of ${days} days; start again without after and resync`,
    payload_too_large: ({ limit }) => `Request body exceeds ${number('en', limit)} bytes`,
    headers_too_large: () => 'Request line and headers are too large',
    malformed_request: () => 'Request line and headers are not valid HTTP',
    unsupported_media_type: () => 'Request body must be sent as Content-Type: application/json',
    rate_limited: ({ limit, requests, windowSeconds, retryAfter }) =>
      `${limit === 'token' ? 'This token' : 'This business (all its tokens together)'} exceeded its rate limit of ` +
      `${number('en', requests)} requests per ${windowSeconds} ${windowSeconds === 1 ? 'second' : 'seconds'}; ` +
      `nothing was done, retry in ${retryAfter} ${retryAfter === 1 ? 'second' : 'seconds'}`,
    internal_error: () => 'An unexpected error occurred; it has been logged',
    service_unavailable: () => 'The data store is temporarily unavailable; retry later',
  },
};

const de: Catalogue = {
  fields: {
    "can't be blank": 'muss ausgefüllt werden',
    'is invalid': 'ist nicht gültig',
    'is not included in the list': 'ist kein gültiger Wert',
    'has already been taken': 'ist bereits vergeben',
    'must be accepted': 'muss akzeptiert werden',
    'does not exist': 'existiert nicht',
    'is not a known field': 'ist kein bekanntes Feld',
    'must be on or after from': 'muss am oder nach from liegen',
    'is not allowed': 'ist nicht erlaubt',
    'is not permitted': 'ist nicht erlaubt',
    'must be less than or equal to 20': 'muss kleiner oder gleich 20 sein',
  },
  records: {
    employee: (id) => `Mitarbeiter ${q(id)} wurde nicht gefunden`,
    employee_job: (id) => `Anstellung ${q(id)} wurde nicht gefunden`,
    application: (id) => `Bewerbung ${q(id)} wurde nicht gefunden`,
    location: (id) => `Standort ${q(id)} wurde nicht gefunden`,
    payout_field: (id) => `Auszahlungsfeld ${q(id)} wurde nicht gefunden`,
    employee_field: (id) => `Mitarbeiterfeld ${q(id)} wurde nicht gefunden`,
    employee_job_field: (id) => `Anstellungsfeld ${q(id)} wurde nicht gefunden`,
    application_field: (id) => `Bewerbungsfeld ${q(id)} wurde nicht gefunden`,
    webhook_subscription: (id) => `Webhook-Abonnement ${q(id)} wurde nicht gefunden`,
    attachment: (id) => `Anhang ${q(id)} wurde nicht gefunden`,
    export: (id) => `Export ${q(id)} wurde nicht gefunden`,
    import: (id) => `Import ${q(id)} wurde nicht gefunden`,
  },
  errors: {
    invalid_json: () => 'Der Request-Body ist kein gültiges JSON',
    body_not_object: () => 'Der Request-Body muss ein JSON-Objekt sein',
    body_too_deep: ({ levels }) => `Der Request-Body ist tiefer als ${levels} Ebenen verschachtelt`,
    body_too_wide: ({ keys }) => `Der Request-Body enthält ein Objekt mit mehr als ${number('de', keys)} Schlüsseln`,
    idempotency_key_invalid: () => 'Der Idempotency-Key muss aus 1 bis 255 druckbaren ASCII-Zeichen bestehen',
    business_not_set_up: () => 'Der Betrieb dieses Tokens ist noch nicht eingerichtet',
    missing_authorization: () => 'Der Header Authorization: Bearer <token> fehlt',
    malformed_authorization: () => 'Der Authorization-Header muss die Form "Bearer <token>" haben',
    unknown_token: () => 'Unbekanntes oder widerrufenes Token',
    expired_token: () => 'Dieses Token ist abgelaufen',
    insufficient_scope: ({ scope }) => `Diesem Token fehlt der Scope ${scope}`,
    fields_withheld: ({ type }) =>
      `Die Feldfreigabe dieses Tokens verbirgt Felder von ${type}, die dieser Export enthält`,
    record_not_found: ({ record, id }) => de.records[record](id),
    route_not_found: ({ method, path }) => `Keine Route für ${clip(`${method} ${path}`)}`,
    not_acceptable: ({ available }) => `Diese Ressource gibt es nur als ${available}; bitte den Accept-Header prüfen`,
    method_not_allowed: ({ allowed }) => `Methode nicht erlaubt; dieser Pfad erlaubt ${allowed.join(', ')}`,
    idempotency_key_reused: () =>
      'Dieser Idempotency-Key wurde bereits für eine andere Anfrage verwendet (andere Methode, anderer Pfad oder Body)',
    application_erased: () =>
      'Die mit diesem Idempotency-Key angelegte Bewerbung wurde gelöscht; sie wird nicht erneut angelegt (für eine neue Bewerbung einen neuen Key senden)',
    subscription_deleted: () =>
      'Das mit diesem Idempotency-Key angelegte Webhook-Abonnement wurde gelöscht; es wird nicht erneut angelegt (für ein neues Abonnement einen neuen Key senden)',
    import_in_progress: ({ id, status }) =>
      `Der Import ${q(id)} dieses Unternehmens ist ${STATUS_DE[status] ?? status}; es läuft immer nur ein Import (solange er auf den Upload wartet, kann er abgebrochen werden)`,
    import_finished: ({ id, status }) => `Der Import ${q(id)} ist beendet (${status}); es gibt nichts abzubrechen`,
    precondition_failed: () =>
      'If-Match stimmt nicht mit dem aktuellen ETag des Datensatzes überein; es wurde nichts geschrieben',
    cursor_expired: ({ days }) =>
      `Dieser Cursor ist älter als die Aufbewahrungsdauer des Änderungs-Feeds von ${days} Tagen; ohne after neu beginnen und neu synchronisieren`,
    payload_too_large: ({ limit }) => `Der Request-Body ist größer als ${number('de', limit)} Bytes`,
    headers_too_large: () => 'Anfragezeile und Header sind zu groß',
    malformed_request: () => 'Anfragezeile und Header sind kein gültiges HTTP',
    unsupported_media_type: () => 'Der Request-Body muss mit Content-Type: application/json gesendet werden',
    rate_limited: ({ limit, requests, windowSeconds, retryAfter }) =>
      `${limit === 'token' ? 'Dieses Token' : 'Dieses Unternehmen (alle seine Tokens zusammen)'} hat sein Limit von ` +
      `${number('de', requests)} Anfragen pro ${windowSeconds} ${windowSeconds === 1 ? 'Sekunde' : 'Sekunden'} ` +
      `überschritten; nichts wurde ausgeführt, bitte in ${retryAfter} ${retryAfter === 1 ? 'Sekunde' : 'Sekunden'} erneut versuchen`,
    internal_error: () => 'Ein unerwarteter Fehler ist aufgetreten; er wurde protokolliert',
    service_unavailable: () => 'Der Datenspeicher ist vorübergehend nicht erreichbar; bitte später erneut versuchen',
  },
};

const it: Catalogue = {
  fields: {
    "can't be blank": 'non può essere lasciato in bianco',
    'is invalid': 'non è valido',
    'is not included in the list': 'non è compreso tra le opzioni disponibili',
    'has already been taken': 'è già presente',
    'must be accepted': 'deve essere accettata',
    'does not exist': 'non esiste',
    'is not a known field': 'non è un campo conosciuto',
    'must be on or after from': 'deve essere uguale o successiva a from',
    'is not allowed': 'non è consentito',
    'is not permitted': 'non è consentito',
    'must be less than or equal to 20': 'deve essere minore o uguale a 20',
  },
  records: {
    employee: (id) => `Dipendente ${q(id)} non trovato`,
    employee_job: (id) => `Rapporto di lavoro ${q(id)} non trovato`,
    application: (id) => `Candidatura ${q(id)} non trovata`,
    location: (id) => `Sede ${q(id)} non trovata`,
    payout_field: (id) => `Campo di pagamento ${q(id)} non trovato`,
    employee_field: (id) => `Campo del dipendente ${q(id)} non trovato`,
    employee_job_field: (id) => `Campo del rapporto di lavoro ${q(id)} non trovato`,
    application_field: (id) => `Campo della candidatura ${q(id)} non trovato`,
    webhook_subscription: (id) => `Sottoscrizione webhook ${q(id)} non trovata`,
    attachment: (id) => `Allegato ${q(id)} non trovato`,
    export: (id) => `Esportazione ${q(id)} non trovata`,
    import: (id) => `Importazione ${q(id)} non trovata`,
  },
  errors: {
    invalid_json: () => 'Il corpo della richiesta non è un JSON valido',
    body_not_object: () => 'Il corpo della richiesta deve essere un oggetto JSON',
    body_too_deep: ({ levels }) => `Il corpo della richiesta è annidato oltre ${levels} livelli`,
    body_too_wide: ({ keys }) => `Il corpo della richiesta ha un oggetto con più di ${number('it', keys)} chiavi`,
    idempotency_key_invalid: () => "L'Idempotency-Key deve contenere da 1 a 255 caratteri ASCII stampabili",
    business_not_set_up: () => "L'azienda di questo token non è ancora configurata",
    missing_authorization: () => "Manca l'header Authorization: Bearer <token>",
    malformed_authorization: () => 'L\'header Authorization deve avere la forma "Bearer <token>"',
    unknown_token: () => 'Token sconosciuto o revocato',
    expired_token: () => 'Questo token è scaduto',
    insufficient_scope: ({ scope }) => `A questo token manca lo scope ${scope}`,
    fields_withheld: ({ type }) =>
      `La concessione di campi di questo token nasconde campi di ${type} contenuti in questo export`,
    record_not_found: ({ record, id }) => it.records[record](id),
    route_not_found: ({ method, path }) => `Nessuna route per ${clip(`${method} ${path}`)}`,
    not_acceptable: ({ available }) => `Questa risorsa è disponibile solo come ${available}; verifica l'header Accept`,
    method_not_allowed: ({ allowed }) => `Metodo non consentito; questo percorso consente ${allowed.join(', ')}`,
    idempotency_key_reused: () =>
      'Questa Idempotency-Key è già stata usata per un’altra richiesta (altro metodo, percorso o corpo)',
    application_erased: () =>
      'La candidatura creata con questa Idempotency-Key è stata cancellata; non viene ricreata (per crearne una nuova inviare una nuova chiave)',
    subscription_deleted: () =>
      "L'iscrizione webhook creata con questa Idempotency-Key è stata eliminata; non viene ricreata (per iscriversi di nuovo inviare una nuova chiave)",
    import_in_progress: ({ id, status }) =>
      `L'importazione ${q(id)} di questa azienda è ${STATUS_IT[status] ?? status}; si esegue un'importazione alla volta (finché attende il caricamento si può annullare)`,
    import_finished: ({ id, status }) => `L'importazione ${q(id)} è terminata (${status}); non c'è nulla da annullare`,
    precondition_failed: () => "If-Match non corrisponde all'ETag attuale del record; non è stato scritto nulla",
    cursor_expired: ({ days }) =>
      `Questo cursore è più vecchio della conservazione del feed delle modifiche di ${days} giorni; ricomincia senza after e risincronizza`,
    payload_too_large: ({ limit }) => `Il corpo della richiesta supera ${number('it', limit)} byte`,
    headers_too_large: () => 'Riga di richiesta e intestazioni troppo grandi',
    malformed_request: () => 'Riga di richiesta e intestazioni non sono HTTP valido',
    unsupported_media_type: () => 'Il corpo della richiesta deve essere inviato con Content-Type: application/json',
    rate_limited: ({ limit, requests, windowSeconds, retryAfter }) =>
      `${limit === 'token' ? 'Questo token' : "Quest'azienda (tutti i suoi token insieme)"} ha superato il limite di ` +
      `${number('it', requests)} richieste ogni ${windowSeconds} ${windowSeconds === 1 ? 'secondo' : 'secondi'}; ` +
      `non è stato eseguito nulla, riprova tra ${retryAfter} ${retryAfter === 1 ? 'secondo' : 'secondi'}`,
    internal_error: () => 'Si è verificato un errore imprevisto; è stato registrato',
    service_unavailable: () => "L'archivio dati è temporaneamente non disponibile; riprova più tardi",
  },
};

export const CATALOGUES: Readonly<Record<Language, Catalogue>> = { en, de, it };
