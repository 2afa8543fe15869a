/**
 * "1234567.891" -> "1,234,567.891": a decimal as written (exact), its integer part grouped by
 * thousands. By hand rather than toLocaleString, which loads ICU's data on its first call (about
 * 60 ms of a CLI start).
 */
export function groupThousands(decimal: string): string {
  const [integer, fraction] = decimal.split('.');
  const grouped = integer!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}
