// The static universe of the FICTIONAL sample market: countries and their deposit guarantee schemes,
// institutions (the licences), the brands the public sees, the platforms that resell deposits and
// the sources rates are read from. Nothing here is random and nothing names a real bank: every
// source says "(sample data)" and every URL is under example.org or example.com.
import { hash32 } from './random.js';

export type Lang = 'nl' | 'de' | 'fr' | 'es' | 'it' | 'pt' | 'en';
/** How an institution prices: incumbents pay little, challengers buy deposits with rate. */
export type Profile = 'incumbent' | 'regular' | 'challenger';
/** How many products a brand sells. */
export type BrandSize = 'large' | 'medium' | 'small';
/** `verified` all along, never (`unverified`), or unverified until a day inside the period. */
export type DgsStatus = 'verified' | 'unverified' | 'becomes-verified';

export interface CountryDef {
  code: string;
  name: string;
  lang: Lang;
  /** Withholding a bank of this country keeps back on interest, on `share` of its offers. */
  withholding: { kind: 'reducible' | 'applicable'; rate: string; reducedRate: string | null; share: number } | null;
}

export interface InstitutionDef {
  id: string;
  name: string;
  country: string;
  lei: string | null;
  profile: Profile;
  dgs: DgsStatus;
  /** verifiedAt of a verified scheme: this many days before the first day of the period. */
  verifiedDaysBeforeStart: number;
}

export interface BrandDef {
  id: string;
  name: string;
  country: string;
  website: string | null;
  institutionId: string;
  size: BrandSize;
  /** Sells only through aggregators and platforms, not on its own site. */
  partnersOnly: boolean;
}

export interface PartnerDef {
  id: string;
  /** Short slug for offer ids (`…-term-12m-spaarplatform`). */
  key: string;
  name: string;
  channel: 'aggregator' | 'platform';
  sourceId: string;
}

export interface SourceDef {
  id: string;
  name: string;
  kind: 'official' | 'aggregator' | 'manual';
  url: string;
}

export const DGS_LIMIT = '100000.00';
export const DEPOSIT_TERMS = [1, 3, 6, 9, 12, 18, 24, 36, 48, 60, 84, 120] as const;
export const NOTICE_DAYS = [30, 31, 33, 35, 45, 60, 90, 92, 95, 120, 180, 270, 365] as const;

export const COUNTRIES: readonly CountryDef[] = [
  { code: 'NL', name: 'the Netherlands', lang: 'nl', withholding: null },
  { code: 'BE', name: 'Belgium', lang: 'fr', withholding: null },
  { code: 'DE', name: 'Germany', lang: 'de', withholding: null },
  { code: 'FR', name: 'France', lang: 'fr', withholding: null },
  {
    code: 'ES',
    name: 'Spain',
    lang: 'es',
    withholding: { kind: 'applicable', rate: '19.00', reducedRate: null, share: 0.8 },
  },
  {
    code: 'IT',
    name: 'Italy',
    lang: 'it',
    withholding: { kind: 'reducible', rate: '26.00', reducedRate: '12.50', share: 0.85 },
  },
  {
    code: 'PT',
    name: 'Portugal',
    lang: 'pt',
    withholding: { kind: 'reducible', rate: '28.00', reducedRate: '10.00', share: 0.7 },
  },
  { code: 'AT', name: 'Austria', lang: 'de', withholding: null },
  { code: 'IE', name: 'Ireland', lang: 'en', withholding: null },
  { code: 'LT', name: 'Lithuania', lang: 'en', withholding: null },
  { code: 'LV', name: 'Latvia', lang: 'en', withholding: null },
  { code: 'EE', name: 'Estonia', lang: 'en', withholding: null },
  { code: 'FI', name: 'Finland', lang: 'en', withholding: null },
  { code: 'SK', name: 'Slovakia', lang: 'en', withholding: null },
  { code: 'MT', name: 'Malta', lang: 'en', withholding: null },
  { code: 'LU', name: 'Luxembourg', lang: 'fr', withholding: null },
  {
    code: 'GR',
    name: 'Greece',
    lang: 'en',
    withholding: { kind: 'applicable', rate: '15.00', reducedRate: null, share: 0.9 },
  },
  {
    code: 'HR',
    name: 'Croatia',
    lang: 'en',
    withholding: { kind: 'applicable', rate: '12.00', reducedRate: null, share: 0.5 },
  },
  { code: 'SI', name: 'Slovenia', lang: 'en', withholding: null },
];

const countryByCode = new Map(COUNTRIES.map((c) => [c.code, c]));

export function countryOf(code: string): CountryDef {
  const c = countryByCode.get(code);
  if (!c) throw new Error(`unknown sample country ${code}`);
  return c;
}

export function dgsSchemeName(code: string): string {
  return `Deposit Guarantee Scheme of ${countryOf(code).name}`;
}

export function dgsRegisterUrl(code: string): string {
  return `https://example.org/dgs-register/${code.toLowerCase()}`;
}

// --- LEIs -------------------------------------------------------------------------------------

const LEI_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const LOU_PREFIXES = ['5493', '7245', '2138', '8156', '9845', '3157'] as const;

/**
 * A fictional but well-formed LEI (ISO 17442): a 4-character issuer prefix, "00", 12 characters
 * derived from the institution id, and two ISO 7064 MOD 97-10 check digits.
 */
export function fictionalLei(institutionId: string): string {
  let body = `${LOU_PREFIXES[hash32('lou', institutionId) % LOU_PREFIXES.length]}00`;
  for (let i = 0; i < 12; i++) body += LEI_ALPHABET[hash32('lei', institutionId, i) % LEI_ALPHABET.length];
  const digits = [...`${body}00`].map((ch) => (ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch)).join('');
  const check = 98n - (BigInt(digits) % 97n);
  return body + check.toString().padStart(2, '0');
}

// --- Institutions and brands ------------------------------------------------------------------

interface BrandSpec {
  id: string;
  name: string;
  size: BrandSize;
  country?: string;
  website?: false;
  partnersOnly?: true;
}

interface InstitutionSpec {
  id: string;
  name: string;
  country: string;
  profile: Profile;
  brands: BrandSpec[];
  lei?: false;
  dgs?: DgsStatus;
}

const SPECS: InstitutionSpec[] = [
  // the Netherlands
  {
    id: 'zeeland-spaarbank',
    name: 'Zeeland Spaarbank N.V.',
    country: 'NL',
    profile: 'regular',
    lei: false,
    brands: [
      { id: 'zeeland-spaarbank', name: 'Zeeland Spaarbank', size: 'large' },
      { id: 'zeeland-direct', name: 'Zeeland Direct', size: 'medium' },
      { id: 'polder-sparen', name: 'Polder Sparen', size: 'small' },
    ],
  },
  {
    id: 'hanzestede-bank',
    name: 'Hanzestede Bankgroep N.V.',
    country: 'NL',
    profile: 'incumbent',
    brands: [
      { id: 'hanzestede-bank', name: 'Hanzestede Bank', size: 'large' },
      { id: 'hanzestede-online', name: 'Hanzestede Online', size: 'medium' },
    ],
  },
  {
    id: 'lindenhof-bank',
    name: 'Lindenhof Bank N.V.',
    country: 'NL',
    profile: 'challenger',
    brands: [{ id: 'lindenhof', name: 'Lindenhof', size: 'medium' }],
  },
  {
    id: 'waddenbank',
    name: 'Coöperatieve Waddenbank U.A.',
    country: 'NL',
    profile: 'regular',
    brands: [
      { id: 'waddenbank', name: 'Waddenbank', size: 'large' },
      { id: 'eilandsparen', name: 'Eilandsparen', size: 'small' },
    ],
  },
  {
    id: 'grachtengordel-vermogensbank',
    name: 'Grachtengordel Vermogensbank B.V.',
    country: 'NL',
    profile: 'regular',
    brands: [{ id: 'grachtengordel-bank', name: 'Grachtengordel Bank', size: 'small' }],
  },
  {
    id: 'noorderlicht-spaarbank',
    name: 'Noorderlicht Spaarbank N.V.',
    country: 'NL',
    profile: 'challenger',
    brands: [{ id: 'noorderlicht', name: 'Noorderlicht', size: 'medium' }],
  },
  // Belgium
  {
    id: 'banque-ardennaise',
    name: 'Banque Ardennaise SA',
    country: 'BE',
    profile: 'incumbent',
    brands: [
      { id: 'banque-ardennaise', name: 'Banque Ardennaise', size: 'large' },
      { id: 'ardenne-epargne', name: 'Ardenne Épargne', size: 'small' },
    ],
  },
  {
    id: 'scheldebank',
    name: 'Scheldebank NV',
    country: 'BE',
    profile: 'regular',
    brands: [
      { id: 'scheldebank', name: 'Scheldebank', size: 'medium' },
      { id: 'scheldespaar', name: 'ScheldeSpaar', size: 'small', country: 'NL' },
    ],
  },
  {
    id: 'brabantse-depositobank',
    name: 'Brabantse Depositobank NV',
    country: 'BE',
    profile: 'challenger',
    brands: [{ id: 'brabantse-depositobank', name: 'Brabantse Depositobank', size: 'medium' }],
  },
  {
    id: 'credit-mosan',
    name: 'Crédit Mosan SA',
    country: 'BE',
    profile: 'regular',
    brands: [{ id: 'credit-mosan', name: 'Crédit Mosan', size: 'medium' }],
  },
  // Germany
  {
    id: 'rheintaler-bank',
    name: 'Rheintaler Bank AG',
    country: 'DE',
    profile: 'incumbent',
    brands: [
      { id: 'rheintaler-bank', name: 'Rheintaler Bank', size: 'large' },
      { id: 'rheintal-direkt', name: 'Rheintal Direkt', size: 'medium' },
      { id: 'zinsfuchs', name: 'ZinsFuchs', size: 'small', country: 'AT' },
    ],
  },
  {
    id: 'hafenbank-hamburg',
    name: 'Hafenbank Hamburg AG',
    country: 'DE',
    profile: 'regular',
    brands: [{ id: 'hafenbank', name: 'Hafenbank', size: 'medium' }],
  },
  {
    id: 'bayerische-alpenbank',
    name: 'Bayerische Alpenbank eG',
    country: 'DE',
    profile: 'regular',
    brands: [
      { id: 'alpenbank', name: 'Alpenbank', size: 'large' },
      { id: 'alpen-direkt', name: 'Alpen Direkt', size: 'small' },
    ],
  },
  {
    id: 'nordsee-kreditbank',
    name: 'Nordsee Kreditbank AG',
    country: 'DE',
    profile: 'challenger',
    brands: [
      { id: 'nordsee-kreditbank', name: 'Nordsee Kreditbank', size: 'medium' },
      { id: 'nordsee-sparen', name: 'Nordsee Sparen', size: 'small', country: 'NL' },
    ],
  },
  {
    id: 'schwarzwald-privatbank',
    name: 'Schwarzwald Privatbank GmbH',
    country: 'DE',
    profile: 'regular',
    lei: false,
    brands: [{ id: 'schwarzwald-privatbank', name: 'Schwarzwald Privatbank', size: 'small' }],
  },
  {
    id: 'elbe-digitalbank',
    name: 'Elbe Digitalbank AG',
    country: 'DE',
    profile: 'challenger',
    brands: [
      { id: 'elbe-bank', name: 'Elbe Bank', size: 'medium' },
      { id: 'elbe-bank-nederland', name: 'Elbe Bank Nederland', size: 'small', country: 'NL' },
    ],
  },
  // France
  {
    id: 'banque-val-de-loire',
    name: 'Banque du Val de Loire SA',
    country: 'FR',
    profile: 'incumbent',
    brands: [
      { id: 'banque-val-de-loire', name: 'Banque du Val de Loire', size: 'large' },
      { id: 'loire-epargne', name: 'Loire Épargne', size: 'small' },
    ],
  },
  {
    id: 'credit-provencal',
    name: 'Crédit Provençal SA',
    country: 'FR',
    profile: 'regular',
    brands: [{ id: 'credit-provencal', name: 'Crédit Provençal', size: 'medium' }],
  },
  {
    id: 'caisse-atlantique',
    name: "Caisse Atlantique d'Épargne",
    country: 'FR',
    profile: 'regular',
    brands: [{ id: 'caisse-atlantique', name: 'Caisse Atlantique', size: 'medium' }],
  },
  {
    id: 'banque-lumiere',
    name: 'Banque Lumière SA',
    country: 'FR',
    profile: 'challenger',
    brands: [
      { id: 'banque-lumiere', name: 'Banque Lumière', size: 'medium' },
      { id: 'lumiere-direct', name: 'Lumière Direct', size: 'small' },
    ],
  },
  {
    id: 'societe-alsacienne-depots',
    name: 'Société Alsacienne de Dépôts',
    country: 'FR',
    profile: 'regular',
    lei: false,
    brands: [{ id: 'alsace-depots', name: 'Alsace Dépôts', size: 'small' }],
  },
  // Spain
  {
    id: 'banco-meseta',
    name: 'Banco Meseta S.A.',
    country: 'ES',
    profile: 'incumbent',
    brands: [
      { id: 'banco-meseta', name: 'Banco Meseta', size: 'large' },
      { id: 'meseta-ahorro', name: 'Meseta Ahorro', size: 'small' },
    ],
  },
  {
    id: 'caja-cantabrico',
    name: 'Caja del Cantábrico S.A.',
    country: 'ES',
    profile: 'regular',
    brands: [{ id: 'caja-cantabrico', name: 'Caja Cantábrico', size: 'medium' }],
  },
  {
    id: 'banco-azahar',
    name: 'Banco Azahar S.A.',
    country: 'ES',
    profile: 'challenger',
    brands: [
      { id: 'banco-azahar', name: 'Banco Azahar', size: 'medium' },
      { id: 'azahar-online', name: 'Azahar Online', size: 'small' },
    ],
  },
  {
    id: 'banco-sierra-nevada',
    name: 'Banco Sierra Nevada S.A.',
    country: 'ES',
    profile: 'regular',
    brands: [{ id: 'sierra-nevada-banco', name: 'Sierra Nevada Banco', size: 'small' }],
  },
  // Italy
  {
    id: 'banca-lagunare',
    name: 'Banca Lagunare S.p.A.',
    country: 'IT',
    profile: 'regular',
    brands: [
      { id: 'banca-lagunare', name: 'Banca Lagunare', size: 'large' },
      { id: 'laguna-deposito', name: 'Laguna Deposito', size: 'small', partnersOnly: true },
    ],
  },
  {
    id: 'banca-dolomiti',
    name: 'Banca delle Dolomiti S.p.A.',
    country: 'IT',
    profile: 'regular',
    brands: [{ id: 'banca-dolomiti', name: 'Banca Dolomiti', size: 'medium' }],
  },
  {
    id: 'credito-toscano',
    name: 'Credito Toscano S.p.A.',
    country: 'IT',
    profile: 'challenger',
    brands: [
      { id: 'credito-toscano', name: 'Credito Toscano', size: 'medium' },
      { id: 'toscanaconto', name: 'ToscanaConto', size: 'small' },
    ],
  },
  {
    id: 'banca-vesuviana',
    name: 'Banca Vesuviana S.p.A.',
    country: 'IT',
    profile: 'incumbent',
    brands: [{ id: 'banca-vesuviana', name: 'Banca Vesuviana', size: 'medium' }],
  },
  // Portugal
  {
    id: 'banco-atlantico-portugues',
    name: 'Banco Atlântico Português S.A.',
    country: 'PT',
    profile: 'incumbent',
    brands: [
      { id: 'banco-atlantico', name: 'Banco Atlântico', size: 'large' },
      { id: 'atlantico-poupanca', name: 'Atlântico Poupança', size: 'small' },
    ],
  },
  {
    id: 'caixa-do-douro',
    name: 'Caixa do Douro S.A.',
    country: 'PT',
    profile: 'regular',
    brands: [{ id: 'caixa-do-douro', name: 'Caixa do Douro', size: 'medium' }],
  },
  {
    id: 'banco-alfama',
    name: 'Banco Alfama S.A.',
    country: 'PT',
    profile: 'challenger',
    dgs: 'unverified',
    brands: [{ id: 'banco-alfama', name: 'Banco Alfama', size: 'small', partnersOnly: true }],
  },
  // Austria
  {
    id: 'donau-sparbank',
    name: 'Donau Sparbank AG',
    country: 'AT',
    profile: 'incumbent',
    brands: [
      { id: 'donau-sparbank', name: 'Donau Sparbank', size: 'large' },
      { id: 'donau-direkt', name: 'Donau Direkt', size: 'medium' },
    ],
  },
  {
    id: 'tirol-kreditbank',
    name: 'Tirol Kreditbank AG',
    country: 'AT',
    profile: 'regular',
    brands: [{ id: 'tirol-kreditbank', name: 'Tirol Kreditbank', size: 'medium' }],
  },
  {
    id: 'wiener-privatbank',
    name: 'Wiener Privatbank AG',
    country: 'AT',
    profile: 'regular',
    brands: [{ id: 'wiener-privatbank', name: 'Wiener Privatbank', size: 'small', website: false }],
  },
  // Ireland
  {
    id: 'shannon-savings-bank',
    name: 'Shannon Savings Bank DAC',
    country: 'IE',
    profile: 'regular',
    brands: [
      { id: 'shannon-savings', name: 'Shannon Savings', size: 'medium' },
      { id: 'shannon-direct', name: 'Shannon Direct', size: 'small' },
    ],
  },
  {
    id: 'liffey-deposit-bank',
    name: 'Liffey Deposit Bank DAC',
    country: 'IE',
    profile: 'challenger',
    brands: [{ id: 'liffey-bank', name: 'Liffey Bank', size: 'medium' }],
  },
  // Lithuania
  {
    id: 'gintaro-bankas',
    name: 'AB Gintaro Bankas',
    country: 'LT',
    profile: 'challenger',
    brands: [
      { id: 'gintaras-bank', name: 'Gintaras Bank', size: 'medium' },
      { id: 'amber-savings', name: 'Amber Savings', size: 'small', country: 'NL', partnersOnly: true },
    ],
  },
  {
    id: 'nemuno-kredito-bankas',
    name: 'AB Nemuno Kredito Bankas',
    country: 'LT',
    profile: 'challenger',
    lei: false,
    brands: [{ id: 'nemunas-bank', name: 'Nemunas Bank', size: 'small', partnersOnly: true }],
  },
  {
    id: 'vilniaus-skaitmeninis-bankas',
    name: 'AB Vilniaus Skaitmeninis Bankas',
    country: 'LT',
    profile: 'challenger',
    brands: [{ id: 'vilnius-digital', name: 'Vilnius Digital', size: 'medium' }],
  },
  // Latvia
  {
    id: 'daugava-banka',
    name: 'AS Daugava Banka',
    country: 'LV',
    profile: 'challenger',
    brands: [
      { id: 'daugava-bank', name: 'Daugava Bank', size: 'medium' },
      { id: 'daugava-sparen', name: 'Daugava Sparen', size: 'small', country: 'DE', partnersOnly: true },
    ],
  },
  {
    id: 'jurmala-banka',
    name: 'AS Jūrmala Banka',
    country: 'LV',
    profile: 'challenger',
    dgs: 'becomes-verified',
    brands: [{ id: 'jurmala-bank', name: 'Jūrmala Bank', size: 'small', partnersOnly: true }],
  },
  // Estonia
  {
    id: 'tallinna-hoiupank',
    name: 'AS Tallinna Hoiupank',
    country: 'EE',
    profile: 'challenger',
    brands: [
      { id: 'tallinn-savings-bank', name: 'Tallinn Savings Bank', size: 'medium' },
      { id: 'hoiupank-direct', name: 'Hoiupank Direct', size: 'small' },
    ],
  },
  {
    id: 'saaremaa-pank',
    name: 'AS Saaremaa Pank',
    country: 'EE',
    profile: 'regular',
    brands: [{ id: 'saaremaa-bank', name: 'Saaremaa Bank', size: 'small' }],
  },
  // Finland
  {
    id: 'jarvi-pankki',
    name: 'Järvi Pankki Oyj',
    country: 'FI',
    profile: 'incumbent',
    brands: [
      { id: 'jarvi-bank', name: 'Järvi Bank', size: 'large' },
      { id: 'jarvi-saasto', name: 'Järvi Säästö', size: 'small' },
    ],
  },
  {
    id: 'lappi-saastopankki',
    name: 'Lappi Säästöpankki Oy',
    country: 'FI',
    profile: 'regular',
    brands: [{ id: 'lappi-savings', name: 'Lappi Savings', size: 'small' }],
  },
  // Slovakia
  {
    id: 'vah-sporitelna',
    name: 'Váh Sporiteľňa a.s.',
    country: 'SK',
    profile: 'regular',
    brands: [{ id: 'vah-bank', name: 'Váh Bank', size: 'medium' }],
  },
  // Malta
  {
    id: 'valletta-harbour-bank',
    name: 'Valletta Harbour Bank p.l.c.',
    country: 'MT',
    profile: 'challenger',
    brands: [
      { id: 'valletta-harbour-bank', name: 'Valletta Harbour Bank', size: 'medium' },
      { id: 'harbour-save', name: 'Harbour Save', size: 'small', country: 'NL', partnersOnly: true },
      {
        id: 'harbour-sparen-de',
        name: 'Harbour Festgeld',
        size: 'small',
        country: 'DE',
        partnersOnly: true,
        website: false,
      },
    ],
  },
  {
    id: 'gozo-deposit-bank',
    name: 'Gozo Deposit Bank Ltd',
    country: 'MT',
    profile: 'challenger',
    dgs: 'unverified',
    lei: false,
    brands: [{ id: 'gozo-bank', name: 'Gozo Bank', size: 'small', partnersOnly: true }],
  },
  // Luxembourg
  {
    id: 'banque-mosellane',
    name: 'Banque Mosellane S.A.',
    country: 'LU',
    profile: 'regular',
    brands: [
      { id: 'banque-mosellane', name: 'Banque Mosellane', size: 'medium' },
      { id: 'moselle-deposits', name: 'Moselle Deposits', size: 'small', country: 'DE' },
    ],
  },
  {
    id: 'ardoise-private-bank',
    name: 'Ardoise Private Bank S.A.',
    country: 'LU',
    profile: 'incumbent',
    brands: [{ id: 'ardoise', name: 'Ardoise', size: 'small' }],
  },
  // Greece
  {
    id: 'kykladiki-trapeza',
    name: 'Kykladiki Trapeza S.A.',
    country: 'GR',
    profile: 'challenger',
    brands: [
      { id: 'kykladiki-bank', name: 'Kykladiki Bank', size: 'medium' },
      { id: 'cyclades-savings', name: 'Cyclades Savings', size: 'small', country: 'NL', partnersOnly: true },
    ],
  },
  // Croatia
  {
    id: 'jadranska-stedna-banka',
    name: 'Jadranska Štedna Banka d.d.',
    country: 'HR',
    profile: 'regular',
    dgs: 'unverified',
    brands: [{ id: 'jadran-bank', name: 'Jadran Bank', size: 'small' }],
  },
  // Slovenia
  {
    id: 'ljubljanica-banka',
    name: 'Ljubljanica Banka d.d.',
    country: 'SI',
    profile: 'regular',
    brands: [
      { id: 'ljubljanica-bank', name: 'Ljubljanica Bank', size: 'small' },
      { id: 'sava-varcevanje', name: 'Sava Varčevanje', size: 'small' },
    ],
  },
];

export const INSTITUTIONS: readonly InstitutionDef[] = SPECS.map((s) => ({
  id: s.id,
  name: s.name,
  country: s.country,
  lei: s.lei === false ? null : fictionalLei(s.id),
  profile: s.profile,
  dgs: s.dgs ?? 'verified',
  verifiedDaysBeforeStart: 20 + (hash32('dgs-verified', s.id) % 400),
}));

export const BRANDS: readonly BrandDef[] = SPECS.flatMap((s) =>
  s.brands.map((b) => ({
    id: b.id,
    name: b.name,
    country: b.country ?? s.country,
    website: b.website === false ? null : `https://example.com/${b.id}`,
    institutionId: s.id,
    size: b.size,
    partnersOnly: b.partnersOnly ?? false,
  })),
);

const institutionById = new Map(INSTITUTIONS.map((i) => [i.id, i]));

export function institutionOf(brand: BrandDef): InstitutionDef {
  const inst = institutionById.get(brand.institutionId);
  if (!inst) throw new Error(`brand ${brand.id}: unknown institution ${brand.institutionId}`);
  return inst;
}

// --- Platforms and sources --------------------------------------------------------------------

export const PARTNERS: readonly PartnerDef[] = [
  {
    id: 'spaarplatform-example',
    key: 'spaarplatform',
    name: 'Spaarplatform Example',
    channel: 'aggregator',
    sourceId: 'src-spaarplatform-example-feed',
  },
  {
    id: 'zinsmarkt-example',
    key: 'zinsmarkt',
    name: 'Zinsmarkt Example',
    channel: 'aggregator',
    sourceId: 'src-zinsmarkt-example-feed',
  },
  {
    id: 'epargne-connect-example',
    key: 'epargne-connect',
    name: 'Épargne Connect Example',
    channel: 'aggregator',
    sourceId: 'src-epargne-connect-example-feed',
  },
  {
    id: 'beleggersplatform-example',
    key: 'beleggersplatform',
    name: 'Beleggersplatform Example',
    channel: 'platform',
    sourceId: 'src-beleggersplatform-example-feed',
  },
  {
    id: 'deposit-marketplace-example',
    key: 'depositmarkt',
    name: 'Deposit Marketplace Example',
    channel: 'platform',
    sourceId: 'src-deposit-marketplace-example-feed',
  },
];

export const MANUAL_SOURCE_ID = 'src-manual-research-desk';
/** A comparison site's feed: it reads rates of direct offers but sells nothing itself. */
export const COMPARISON_SOURCE_ID = 'src-rentevergelijker-example-feed';

export function officialSourceId(institutionId: string): string {
  return `src-${institutionId}-site`;
}

export const SOURCES: readonly SourceDef[] = [
  ...INSTITUTIONS.map((i): SourceDef => ({
    id: officialSourceId(i.id),
    name: `${i.name} website (sample data)`,
    kind: 'official',
    url: `https://example.org/${i.id}/rates`,
  })),
  ...PARTNERS.map((p): SourceDef => ({
    id: p.sourceId,
    name: `${p.name} rate feed (sample data)`,
    kind: 'aggregator',
    url: `https://example.com/${p.id}/feed.json`,
  })),
  {
    id: COMPARISON_SOURCE_ID,
    name: 'Rentevergelijker Example comparison feed (sample data)',
    kind: 'aggregator',
    url: 'https://example.com/rentevergelijker-example/feed.json',
  },
  {
    id: MANUAL_SOURCE_ID,
    name: 'Manual research desk (sample data)',
    kind: 'manual',
    url: 'https://example.org/manual-research',
  },
];

/** What a failing source reports; one is picked per outage. */
export const SOURCE_ERRORS: readonly string[] = [
  'HTTP 503 Service Unavailable',
  'HTTP 502 Bad Gateway',
  'HTTP 403 Forbidden (blocked by a bot filter)',
  'timeout after 30000 ms',
  'TLS handshake failed: certificate has expired',
  'parse error: rate table not found on the page',
  'parse error: unexpected JSON at position 0',
  'DNS lookup failed (ENOTFOUND)',
];

// --- Product names ----------------------------------------------------------------------------

export interface ProductNames {
  flexible: readonly string[];
  notice: (days: number) => string;
  deposit: (months: number) => string;
}

const years = (months: number): number | null => (months >= 24 && months % 12 === 0 ? months / 12 : null);

export const PRODUCT_NAMES: Readonly<Record<Lang, ProductNames>> = {
  nl: {
    flexible: ['Internet Sparen', 'Vrij Sparen', 'Online Spaarrekening', 'Direct Sparen', 'Plus Sparen'],
    notice: (d) => `Opzegsparen ${d} dagen`,
    deposit: (m) => (years(m) ? `Deposito ${years(m)} jaar` : m === 12 ? 'Deposito 1 jaar' : `Deposito ${m} maanden`),
  },
  de: {
    flexible: ['Tagesgeld', 'Tagesgeld Plus', 'Extrakonto', 'Sparkonto Flex', 'Zinskonto'],
    notice: (d) => `Kündigungsgeld ${d} Tage`,
    deposit: (m) => (years(m) ? `Festgeld ${years(m)} Jahre` : m === 12 ? 'Festgeld 1 Jahr' : `Festgeld ${m} Monate`),
  },
  fr: {
    flexible: ['Livret Épargne', 'Compte sur Livret', 'Livret Plus', 'Épargne Libre', 'Livret Connecté'],
    notice: (d) => `Épargne à préavis ${d} jours`,
    deposit: (m) =>
      years(m) ? `Compte à terme ${years(m)} ans` : m === 12 ? 'Compte à terme 1 an' : `Compte à terme ${m} mois`,
  },
  es: {
    flexible: ['Cuenta Ahorro', 'Cuenta Remunerada', 'Cuenta Online', 'Cuenta Ahorro Más'],
    notice: (d) => `Cuenta con preaviso ${d} días`,
    deposit: (m) =>
      years(m)
        ? `Depósito ${years(m)} años`
        : m === 12
          ? 'Depósito 1 año'
          : m === 1
            ? 'Depósito 1 mes'
            : `Depósito ${m} meses`,
  },
  it: {
    flexible: ['Conto Deposito Libero', 'Conto Risparmio', 'Conto Premio', 'Conto Deposito Smart'],
    notice: (d) => `Conto con preavviso ${d} giorni`,
    deposit: (m) =>
      years(m)
        ? `Conto Deposito Vincolato ${years(m)} anni`
        : m === 12
          ? 'Conto Deposito Vincolato 1 anno'
          : m === 1
            ? 'Conto Deposito Vincolato 1 mese'
            : `Conto Deposito Vincolato ${m} mesi`,
  },
  pt: {
    flexible: ['Conta Poupança', 'Poupança Flexível', 'Conta Poupança Online'],
    notice: (d) => `Poupança com pré-aviso ${d} dias`,
    deposit: (m) =>
      years(m)
        ? `Depósito a Prazo ${years(m)} anos`
        : m === 12
          ? 'Depósito a Prazo 1 ano'
          : m === 1
            ? 'Depósito a Prazo 1 mês'
            : `Depósito a Prazo ${m} meses`,
  },
  en: {
    flexible: ['Easy Access Saver', 'Online Saver', 'Instant Access Account', 'Flexible Savings', 'Everyday Saver'],
    notice: (d) => `${d}-Day Notice Account`,
    deposit: (m) =>
      years(m)
        ? `${years(m)}-Year Fixed Deposit`
        : m === 12
          ? '1-Year Fixed Deposit'
          : m === 1
            ? '1-Month Fixed Deposit'
            : `${m}-Month Fixed Deposit`,
  },
};
