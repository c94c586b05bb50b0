/**
 * Hits of plugins that are not configured are shown (marked, with what to set) but weigh less
 * than a configured plugin's hit of about the same score: a user who asks "read a file" with the
 * filesystem plugin running wants read_file before GitHub's get_file_contents, while "list github
 * issues" still finds GitHub's list_issues because nothing configured comes close. The re-sort
 * that applies it is in ranked-window.ts.
 */
export const UNCONFIGURED_WEIGHT = 0.9;
