// Answers questions about the interrupt wire format using the real @tanstack/ai package,
// so the Python implementation can be compared with it byte for byte.
//
// Usage: node tanstack_wire.mjs < requests.json > responses.json
//
// The package is looked up in $PAUSEPOINT_NODE_MODULES (a node_modules folder), else in
// ./node_modules next to this script (`npm ci` here installs the pinned version).
//
// stdin:  a JSON array of requests, each {"op": NAME, ...arguments}
// stdout: a JSON array with one response per request, in order:
//         {"ok": true, "result": VALUE} or {"ok": false, "error": "TypeError: message"}
//         A JavaScript `undefined` result is written as null.
//
// Operations (JavaScript names are the @tanstack/ai exports used):
//   {"op": "info"}                          -> {"version", "exports": [names used]}
//   {"op": "canonical", "value": V}         -> canonicalInterruptJson(V)
//   {"op": "digest", "text": S}             -> digestInterruptJson(S)
//   {"op": "read", "descriptor": D}         -> readInterruptBinding(D) (null when none)
//   {"op": "readUnopened", "descriptor": D} -> readUnopenedInterruptBinding(D)
//   {"op": "with", "descriptor": D, "binding": B} -> withInterruptBinding(D, B)
//   {"op": "without", "descriptor": D}      -> withoutInterruptBinding(D)
//   {"op": "fingerprint", "resume": [E]}    -> canonicalizeInterruptResolutions([E]):
//                                              {"fingerprint", "canonicalResolutions"}
//   {"op": "schemaHash", "schema"?: S}      -> hashSchemaInput(S) (absent: undefined)
//   {"op": "approvalSchema", "inputSchema"?: S, "approvalSchema"?: A}
//                                           -> normalizeApprovalSchema(A, S):
//                                              {"responseSchema", "responseSchemaHash",
//                                               "approvalSchemaHash"}
//   {"op": "dateParses", "text": S}         -> Number.isFinite(Date.parse(S))
//
// Numbers go through JSON.parse, so integers beyond 2**53 arrive as the nearest double.

import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const modules = process.env.PAUSEPOINT_NODE_MODULES || join(here, 'node_modules')
const packageDir = join(modules, '@tanstack', 'ai')
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))
const ai = await import(pathToFileURL(join(packageDir, manifest.exports['.'].import)).href)

const used = [
  'canonicalInterruptJson',
  'digestInterruptJson',
  'readInterruptBinding',
  'readUnopenedInterruptBinding',
  'withInterruptBinding',
  'withoutInterruptBinding',
  'canonicalizeInterruptResolutions',
  'hashSchemaInput',
  'normalizeApprovalSchema',
]
const missing = used.filter((name) => typeof ai[name] !== 'function')
if (missing.length > 0) {
  process.stderr.write(`@tanstack/ai ${manifest.version} lacks: ${missing.join(', ')}\n`)
  process.exit(2)
}

const operations = {
  info: () => ({ version: manifest.version, exports: used }),
  canonical: (request) => ai.canonicalInterruptJson(request.value),
  digest: (request) => ai.digestInterruptJson(request.text),
  read: (request) => ai.readInterruptBinding(request.descriptor),
  readUnopened: (request) => ai.readUnopenedInterruptBinding(request.descriptor),
  with: (request) => ai.withInterruptBinding(request.descriptor, request.binding),
  without: (request) => ai.withoutInterruptBinding(request.descriptor),
  fingerprint: (request) => {
    const { fingerprint, canonicalResolutions } = ai.canonicalizeInterruptResolutions(
      request.resume,
    )
    return { fingerprint, canonicalResolutions }
  },
  schemaHash: (request) => ai.hashSchemaInput(request.schema),
  approvalSchema: (request) => {
    const normalized = ai.normalizeApprovalSchema(request.approvalSchema, request.inputSchema)
    return {
      responseSchema: normalized.responseSchema,
      responseSchemaHash: normalized.responseSchemaHash,
      approvalSchemaHash: normalized.approvalSchemaHash,
    }
  },
  dateParses: (request) => Number.isFinite(Date.parse(request.text)),
}

const requests = JSON.parse(readFileSync(0, 'utf8'))
const responses = []
for (const request of requests) {
  const operation = operations[request.op]
  try {
    if (!operation) throw new Error(`unknown op ${JSON.stringify(request.op)}`)
    // Digests may become async in a later release; awaiting a plain value is harmless.
    const result = await operation(request)
    responses.push({ ok: true, result: result === undefined ? null : result })
  } catch (error) {
    responses.push({ ok: false, error: `${error?.name}: ${error?.message}` })
  }
}
process.stdout.write(JSON.stringify(responses))
