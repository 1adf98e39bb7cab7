import { test } from "node:test";
import assert from "node:assert/strict";

import { slugify } from "./slug.js";

test("joins words with hyphens", () => {
  assert.equal(slugify("  Release Notes "), "release-notes");
});
