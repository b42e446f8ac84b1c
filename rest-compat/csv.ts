import { AppError } from "../src/errors.js";

/**
 * CSV at the REST door of `POST /api/score/batch` and `GET /api/score/batches/{id}`
 * (docs/api.md §13): a format of the door, so it is read and written here and the
 * operation sees a list and a batch as GraphQL does.
 */

/**
 * The addresses of a `text/csv` body: the first column of each line. CRLF or LF;
 * blank lines are skipped; a first line whose first cell is `url` (any case) is a
 * header; a quoted first cell (`"https://a.example/?x=1,2"`, `""` for a quote) is
 * read whole; cells after the first are ignored (a spreadsheet's other columns).
 */
export function urlsFromCsv(text: string): string[] {
  const urls: string[] = [];
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\n|\r/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const cell = firstCell(line, index + 1).trim();
    if (urls.length === 0 && index === firstNonBlank(lines) && cell.toLowerCase() === "url") continue;
    urls.push(cell);
  }
  return urls;
}

function firstNonBlank(lines: readonly string[]): number {
  return lines.findIndex((line) => line.trim() !== "");
}

function firstCell(line: string, lineNumber: number): string {
  const start = line.search(/\S/);
  if (line[start] !== '"') return line.split(",")[0]!;
  let cell = "";
  for (let i = start + 1; i < line.length; i += 1) {
    if (line[i] !== '"') {
      cell += line[i];
    } else if (line[i + 1] === '"') {
      cell += '"';
      i += 1;
    } else {
      return cell;
    }
  }
  throw new AppError("VALIDATION_FAILED", `body: line ${lineNumber} opens a quote it does not close`);
}

/** One cell: quoted when it holds a comma, quote or line break; a leading = + - @ (a spreadsheet formula) is defused with '. */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows as CSV text, CRLF line ends (RFC 4180). */
export function csvText(
  header: readonly string[],
  rows: readonly (readonly (string | number | null | undefined)[])[],
): string {
  return [header, ...rows].map((row) => row.map(csvCell).join(",")).join("\r\n") + "\r\n";
}
