// Shared by the skills (this folder is not scanned for skills): the check names. A tool result
// becomes a report through the kit's unwrapResult (a result flagged isError throws).

export const CHECKS = [
  "measure_complexity",
  "check_signature",
  "check_purity",
  "check_asserts",
  "check_bare_except",
  "check_mutable_defaults",
  "check_none_cmp",
  "scan_guardrails",
  "scan_dependencies",
];
