/** Whether an environment switch says "off" (`off`, `0`, `false`, `no`, any case, spaces ignored). */
export function isOffValue(value: string | undefined): boolean {
  const word = value?.trim().toLowerCase();
  return word === "off" || word === "0" || word === "false" || word === "no";
}
