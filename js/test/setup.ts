import { useMarkdownClock } from "../src/lib/markdown";

// What the tests check is what texts look like and what clicks do; how long formatting
// may take is checked in test/markdown-budget.test.ts (with the page's clock) and in the
// browser. A clock that stands still keeps a busy machine from changing what they see.
useMarkdownClock(() => 0);
