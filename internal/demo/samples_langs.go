package demo

import "github.com/cogworks/cogworks/internal/config"

// The Python sample: Stock.remove lets a count go negative. The first fix
// raises only after changing the count: pytest's JUnit report names the
// failing regression test and its assertion, and the second fix answers it.
const (
	pyRemoveOld = `    def remove(self, item, qty):
        """Removes qty of item."""
        self._counts[item] = self._counts.get(item, 0) - qty
`
	pyRemoveBroken = `    def remove(self, item, qty):
        """Removes qty of item; raises ValueError when fewer are on hand."""
        on_hand = self._counts.get(item, 0)
        self._counts[item] = on_hand - qty
        if self._counts[item] < 0:
            raise ValueError(f"only {on_hand} {item} on hand, cannot remove {qty}")
`
	pyRemoveFixed = `    def remove(self, item, qty):
        """Removes qty of item; raises ValueError when fewer are on hand."""
        on_hand = self._counts.get(item, 0)
        if qty > on_hand:
            raise ValueError(f"only {on_hand} {item} on hand, cannot remove {qty}")
        self._counts[item] = on_hand - qty
`
	pyRemoveTest = `import pytest

from inventory import Stock


def test_remove_too_many_is_refused():
    s = Stock()
    s.add("bolt", 2)
    with pytest.raises(ValueError):
        s.remove("bolt", 3)
    assert s.count("bolt") == 2


def test_remove_everything():
    s = Stock()
    s.add("bolt", 2)
    s.remove("bolt", 2)
    assert s.count("bolt") == 0
`
)

func pythonSample() Sample {
	const desc = "Stock.remove raises ValueError when fewer than qty are on hand and leaves the count unchanged."
	const feedback = "tests/test_remove.py::test_remove_too_many_is_refused failed"
	return Sample{
		Repo:       "inventory",
		IssueTitle: "Stock.remove lets the count go negative",
		IssueBody: "Removing more bolts than are on hand leaves `Stock.count` negative.\n\n" +
			"`Stock.remove` must raise `ValueError` when fewer than `qty` are on hand, and leave the count unchanged.",
		Domain:    config.Domain{Name: "python", Preset: "python"},
		Feedback:  feedback,
		Tool:      "pytest's JUnit XML report",
		FixedPath: "inventory/stock.py", Fixed: pyRemoveFixed,
		Rules: bugFix{module: "inventory", desc: desc, files: []string{"inventory/stock.py", "tests/test_remove.py"}, feedback: feedback,
			broken: change("Refuse removals beyond what is on hand.", []edit{{"inventory/stock.py", pyRemoveOld, pyRemoveBroken}}, file{"tests/test_remove.py", pyRemoveTest}),
			fixed:  change("Check before changing the count, so a refused removal leaves it unchanged.", []edit{{"inventory/stock.py", pyRemoveOld, pyRemoveFixed}}, file{"tests/test_remove.py", pyRemoveTest})}.rules(),
	}
}

// The TypeScript sample: slugify keeps punctuation. The first fix assigns
// String.match's nullable result to a string[] (tsc's TS2322 under
// strict), and the second answers the type checker.
const (
	tsSlugOld    = `  return title.trim().toLowerCase().replace(/\s+/g, "-");` + "\n"
	tsSlugBroken = `  const words: string[] = title.toLowerCase().match(/[a-z0-9]+/g);` + "\n" + `  return words.join("-");` + "\n"
	tsSlugFixed  = `  const words: string[] = title.toLowerCase().match(/[a-z0-9]+/g) ?? [];` + "\n" + `  return words.join("-");` + "\n"
	tsSlugTest   = `import { test } from "node:test";
import assert from "node:assert/strict";

import { slugify } from "./slug.js";

test("drops punctuation", () => {
  assert.equal(slugify("Hello, World!"), "hello-world");
});

test("a title without words is empty", () => {
  assert.equal(slugify("?!"), "");
});
`
)

func typescriptSample() Sample {
	const desc = "slugify keeps only letters and digits, joining the words with hyphens."
	return Sample{
		Repo:       "slugs",
		IssueTitle: "slugify keeps punctuation",
		IssueBody:  "`slugify(\"Hello, World!\")` returns `hello,-world!`; it must return `hello-world` (letters and digits only, words joined by hyphens).",
		// The set-up a team writes is `npm ci` with the network in its own
		// step; the demo and the tests link a prepared node_modules instead
		// (see NodeTools).
		Domain:    config.Domain{Name: "typescript", Preset: "typescript"},
		Feedback:  "TS2322",
		Tool:      "tsc --noEmit",
		FixedPath: "src/slug.ts", Fixed: tsSlugFixed,
		Rules: bugFix{module: "src", desc: desc, files: []string{"src/slug.ts", "src/punctuation.test.ts"}, feedback: "TS2322",
			broken: change("Keep the words only.", []edit{{"src/slug.ts", tsSlugOld, tsSlugBroken}}, file{"src/punctuation.test.ts", tsSlugTest}),
			fixed:  change("String.match returns null when nothing matches: default to no words.", []edit{{"src/slug.ts", tsSlugOld, tsSlugFixed}}, file{"src/punctuation.test.ts", tsSlugTest})}.rules(),
	}
}

// The Rust sample: percent divides by zero. The first fix answers
// Some(0) for an empty whole; cargo test's failure names the regression
// test and the second fix answers it.
const (
	rsPercentOld = `/// Returns ` + "`part`" + ` as a whole percentage of ` + "`whole`" + `, rounded down.
pub fn percent(part: u32, whole: u32) -> u32 {
    part * 100 / whole
}
`
	rsPercentBroken = `/// Returns ` + "`part`" + ` as a whole percentage of ` + "`whole`" + `, rounded down;
/// None when ` + "`whole`" + ` is zero.
pub fn percent(part: u32, whole: u32) -> Option<u32> {
    if whole == 0 {
        return Some(0);
    }
    Some(part * 100 / whole)
}
`
	rsPercentFixed = `/// Returns ` + "`part`" + ` as a whole percentage of ` + "`whole`" + `, rounded down;
/// None when ` + "`whole`" + ` is zero.
pub fn percent(part: u32, whole: u32) -> Option<u32> {
    if whole == 0 {
        return None;
    }
    Some(part * 100 / whole)
}
`
	rsTestOld = `    fn half_is_fifty() {
        assert_eq!(percent(1, 2), 50);
    }
`
	rsTestNew = `    fn half_is_fifty() {
        assert_eq!(percent(1, 2), Some(50));
    }

    #[test]
    fn percent_of_nothing_is_none() {
        assert_eq!(percent(1, 0), None);
    }
`
)

func rustSample() Sample {
	const desc = "percent returns None for an empty whole instead of dividing by zero."
	const feedback = "percent_of_nothing_is_none failed"
	return Sample{
		Repo:       "ratio",
		IssueTitle: "percent panics when the whole is zero",
		IssueBody:  "`percent(1, 0)` panics with \"attempt to divide by zero\". It must return `None` for an empty whole.",
		Domain:     config.Domain{Name: "rust", Preset: "rust"},
		Feedback:   feedback,
		Tool:       "cargo test",
		FixedPath:  "src/lib.rs", Fixed: rsPercentFixed,
		Rules: bugFix{module: "src", desc: desc, files: []string{"src/lib.rs"}, feedback: feedback,
			broken: change("Return an Option.", []edit{{"src/lib.rs", rsPercentOld, rsPercentBroken}, {"src/lib.rs", rsTestOld, rsTestNew}}),
			fixed:  change("An empty whole has no percentage: None.", []edit{{"src/lib.rs", rsPercentOld, rsPercentFixed}, {"src/lib.rs", rsTestOld, rsTestNew}})}.rules(),
	}
}
