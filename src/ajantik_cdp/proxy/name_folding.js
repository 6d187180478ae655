// ajantik cdp: a name folded the way core/policy/name_folding.py folds it (fold_name),
// so that a deny_clicks pattern (folded in Python) meets a label folded the same way.
// `table` holds each character whose full case folding is not its lower case (ß, ſ, ς,
// ligatures...); every other character is lowercased one at a time, since a whole-string
// toLowerCase would apply the final-sigma rule, which case folding does not.
function ajantikFold(table) {
  "use strict";
  const INVISIBLE = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff]/g;
  return function fold(s) {
    let out = "";
    for (const c of String(s || "").normalize("NFKC")) {
      const mapped = table[c];
      out += mapped !== undefined ? mapped : c.toLowerCase();
    }
    return out.normalize("NFKC").replace(/\u0307/g, "").replace(/\u0131/g, "i")
      .replace(INVISIBLE, "").replace(/\s+/g, " ").trim();
  };
}
