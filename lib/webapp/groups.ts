/**
 * Groups of columns on the pages (issue #25; Loop's most requested feature, uhabits discussion
 * #495): Today's form and the habit list show a group's columns together under its name. Sections
 * come in the order of each group's first column, columns keep their order within a section, and
 * the columns without a group form one section of their own ("Other") where their first one comes.
 */

/** One headed section: a group's name (`null`: the columns without one) and its items. */
export interface GroupSection<T> {
  group: string | null;
  items: T[];
}

/** What the sections without a group are headed with, when other columns have one. */
export const UNGROUPED_HEADING = "Other";

/**
 * The items in sections by group, or `null` when no item has a group: a member who never set one
 * sees the page as before, without headings.
 */
export function groupSections<T>(
  items: readonly T[],
  groupOf: (item: T) => string | null | undefined,
): GroupSection<T>[] | null {
  if (!items.some((item) => groupOf(item))) return null;
  const sections = new Map<string | null, T[]>();
  for (const item of items) {
    const group = groupOf(item) || null;
    const list = sections.get(group) ?? [];
    if (list.length === 0) sections.set(group, list);
    list.push(item);
  }
  return [...sections].map(([group, list]) => ({ group, items: list }));
}

/** A section's heading. */
export function sectionHeading(section: GroupSection<unknown>): string {
  return section.group ?? UNGROUPED_HEADING;
}
