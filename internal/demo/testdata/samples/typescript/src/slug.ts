/** Turns a title into a URL slug: lower case, words joined by hyphens. */
export function slugify(title: string): string {
  return title.trim().toLowerCase().replace(/\s+/g, "-");
}
