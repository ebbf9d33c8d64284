// A secret found in a text: its range and which rule found it.
export interface SecretFinding {
  start: number;
  end: number;
  rule: string;
}
