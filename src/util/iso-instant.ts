/**
 * @module ISO 8601 dates and times read as instants (epoch milliseconds), any year included:
 * `2026-12-01`, `2026-12-01T10:00Z`, `2026-12-01 10:00:00.5+02:00`, `99999-01-01`, `-0044-03-15`.
 */

const ISO =
  /^([+-]?\d{4,6})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/i;

const DAY_MS = 86_400_000;

/** Days from 1970-01-01 to a proleptic Gregorian date, for any year (Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The instant `text` names, in epoch milliseconds (past the range of a JS Date too), or
 * undefined when it is not an ISO 8601 date or time. A time without an offset is UTC. A
 * fraction finer than a millisecond rounds up, so "at or after" keeps its meaning.
 */
export function parseIsoInstant(text: string): number | undefined {
  const m = ISO.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo = '1', d = '1', h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const [hour, minute, second] = [Number(h), Number(mi), Number(s)];
  if (month < 1 || month > 12) return undefined;
  const monthDays = month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1]!;
  if (day < 1 || day > monthDays || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2) || '0');
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (oh * 60 + om);
  }
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  const finer = /[1-9]/.test(fraction.slice(3)) ? 1 : 0;
  return (
    daysFromCivil(year, month, day) * DAY_MS +
    ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 +
    millis +
    finer
  );
}
