"""The kernel refuses every format value the browser refuses: it is the authority.

The browser's verdicts come from the view's own validation module (``js/src/lib/validation.ts``,
bundled for node with the front end's esbuild), run through node. Skipped without node or
the front end's packages, except under ``CI=true``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pausepoint._response_schema import answer_validator

JS = Path(__file__).resolve().parents[1] / "js"

GOOD = {
    "date": "2026-02-28",
    "time": "10:20:30Z",
    "date-time": "2026-02-28T10:20:30.5+01:00",
    "iso-time": "10:20:30",
    "iso-date-time": "2026-02-28 10:20:30",
    "duration": "P1Y2M3DT4H5M6S",
    "uri": "https://example.com/a?b=c#d",
    "uri-reference": "../a/b?c",
    "uri-template": "https://example.com/{id}",
    "url": "https://example.com/path",
    "email": "ada.lovelace+tag@example.co.uk",
    "hostname": "sub.example.com",
    "ipv4": "192.0.2.33",
    "ipv6": "2001:db8::8a2e:370:7334",
    "regex": "^[a-z]+$",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
    "json-pointer": "/a/b~1c",
    "json-pointer-uri-fragment": "#/a/b",
    "relative-json-pointer": "1/a",
    "byte": "aGVsbG8gd29ybGQ=",
}

TRICKY = [
    "",
    " ",
    "x",
    "a@b",
    "@example.com",
    "a@@b.com",
    "a b@example.com",
    "ada@example.com\n",
    "ada@exa_mple.com",
    "ada@-example.com",
    "2026-02-30",
    "2026-13-01",
    "2024-02-29",
    "2026-1-1",
    "٢٠٢٦-٠١-٠١",
    "24:00:00Z",
    "23:59:60Z",
    "23:59:60+01:00",
    "10:20:30",
    "10:20:30+25:00",
    "10:20Z",
    "2026-01-01T10:20:30",
    "2026-01-01t10:20:30z",
    "2026-01-01 10:20:30Z",
    "P",
    "PT",
    "P1.5D",
    "P1W2D",
    "PT36H",
    "-P1D",
    "no scheme",
    "http://",
    "http://exa mple.com",
    "http://localhost",
    "http://10.0.0.1/x",
    "http://8.8.8.8/x",
    "ftp://example.com/file",
    "mailto:ada@example.com",
    "//example.com/x",
    "a\\b",
    "{id",
    "-bad-.example",
    "a" * 64 + ".com",
    "example.com.",
    "1.2.3.4",
    "256.1.1.1",
    "01.2.3.4",
    "1.2.3",
    "1:::2",
    "::",
    "::ffff:1.2.3.4",
    "fe80::1%eth0",
    "123e4567e89b12d3a456426614174000",
    "{123e4567-e89b-12d3-a456-426614174000}",
    "urn:uuid:123e4567-e89b-12d3-a456-426614174000",
    "a/b",
    "/a~2",
    "#/a b",
    "0#",
    "01/a",
    "aGVsbG8",
    "not base64!",
    "(unclosed",
    "[z-a]",
    "https://exämple.com",
    "https://example.com/ä",
    "ada@exämple.com",
    "ｅxample.com",
    "a.b.c{",
    "{a.b}",
    "x{+var:3}y{#a,b*}",
]


def variants(value: str) -> list[str]:
    """A valid value and the ways it is commonly broken or smuggled."""
    return [value, value + "\n", " " + value, value.upper(), value + "\x00", value[:-1]]


NUMBERS = [0, -7, 1.5, 2**31 - 1, 2**31, -(2**31) - 1, 2**53, 2**63, 1e300]


def browser_verdicts(cases: list[tuple[str, Any]]) -> list[bool]:
    node = shutil.which("node")
    if node is None or not (JS / "node_modules" / "esbuild").is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail("node and js/node_modules are needed for the format cross-check in CI")
        pytest.skip("node or js/node_modules missing (run make js)")
    script = """
const { buildSync } = require(process.argv[1] + "/node_modules/esbuild");
const { mkdtempSync, rmSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const { tmpdir } = require("node:os");
const built = buildSync({
  entryPoints: [process.argv[1] + "/src/lib/validation.ts"],
  bundle: true, platform: "node", format: "cjs", write: false, logLevel: "error",
});
const dir = mkdtempSync(join(tmpdir(), "pp-validation-"));
const file = join(dir, "validation.cjs");
writeFileSync(file, built.outputFiles[0].text);
const { compileSchema } = require(file);
rmSync(dir, { recursive: true });
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const verdicts = JSON.parse(input).map(([format, value]) => {
    const type = typeof value === "number" ? "number" : "string";
    const validator = compileSchema({ type, format });
    if (validator instanceof Error) throw validator;
    return validator.validate(value).length === 0;
  });
  process.stdout.write(JSON.stringify(verdicts));
});
"""
    done = subprocess.run(
        [node, "-e", script, str(JS)],
        input=json.dumps(cases).encode(),
        capture_output=True,
        timeout=60,
        check=True,
    )
    verdicts: list[bool] = json.loads(done.stdout)
    return verdicts


def kernel_accepts(fmt: str, value: Any) -> bool:
    kind = "number" if isinstance(value, int | float) else "string"
    return answer_validator({"type": kind, "format": fmt}).is_valid(value)


def test_every_value_the_browser_refuses_the_kernel_refuses() -> None:
    cases: list[tuple[str, Any]] = [
        (fmt, value) for fmt in GOOD for value in [*variants(GOOD[fmt]), *TRICKY]
    ]
    cases += [(fmt, n) for fmt in ("int32", "int64", "float", "double") for n in NUMBERS]
    verdicts = browser_verdicts(cases)
    bypasses = [
        (fmt, value)
        for (fmt, value), browser_ok in zip(cases, verdicts, strict=True)
        if not browser_ok and kernel_accepts(fmt, value)
    ]
    assert bypasses == []


def test_the_kernel_accepts_ordinary_values_the_browser_accepts() -> None:
    cases = list(GOOD.items())
    assert browser_verdicts(cases) == [True] * len(cases)
    assert [fmt for fmt, value in cases if not kernel_accepts(fmt, value)] == []
