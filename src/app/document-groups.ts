// The document list groups files by their folder (an archive's folders, or a dropped folder),
// so a 113-file zip reads as a tree of a few headings rather than one long column of paths.

export interface DocumentGroup<T> {
  /** The folder's path ("" for files at the top). */
  folder: string;
  items: { name: string; doc: T }[];
}

/** Groups in the order their first file appears; each file named by what follows its folder. */
export function groupByFolder<T extends { path: string }>(docs: readonly T[]): DocumentGroup<T>[] {
  const groups = new Map<string, DocumentGroup<T>>();
  for (const doc of docs) {
    const cut = doc.path.lastIndexOf("/");
    const folder = cut < 0 ? "" : doc.path.slice(0, cut);
    let group = groups.get(folder);
    if (!group) groups.set(folder, (group = { folder, items: [] }));
    group.items.push({ name: doc.path.slice(cut + 1), doc });
  }
  return [...groups.values()];
}
