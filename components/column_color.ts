/**
 * Each column has its own colour, as Loop gives each habit one (issue #11 "Standards"). Pass the
 * column's position in the member's FULL column list (`listColumns`, archived included) so every
 * page gives a column the same colour and eight neighbours get eight colours. Colours are CSS custom properties (`--col-0` … `--col-7` in static/styles.css), each
 * with a light and a dark value of at least 3:1 against the card surface (WCAG 1.4.11).
 */

/** How many column colours the stylesheet defines. */
export const COLUMN_COLOR_COUNT = 8;

/** A column's colour: put `className` on an element, then use `var(--c)` inside it. */
export interface ColumnColor {
  /** `col-N`: sets `--c` to the column's colour for the element and its children. */
  className: string;
  /** `var(--col-N)`, for a style or an SVG `style` property. */
  cssVar: string;
  index: number;
}

/** The colour of a column: by its list position, or (no position known) by a hash of its key. */
export function columnColor(column: { key: string }, index?: number): ColumnColor {
  let n: number;
  if (index !== undefined && index >= 0) {
    n = index % COLUMN_COLOR_COUNT;
  } else {
    // FNV-1a over the key: stable and spread out.
    let hash = 2166136261;
    for (let i = 0; i < column.key.length; i++) {
      hash = Math.imul(hash ^ column.key.charCodeAt(i), 16777619) >>> 0;
    }
    n = hash % COLUMN_COLOR_COUNT;
  }
  return { className: `col-${n}`, cssVar: `var(--col-${n})`, index: n };
}
