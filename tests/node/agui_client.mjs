// Drives a pausepoint AG-UI server with the real @ag-ui/client package, as a web app
// would: HttpAgent.runAgent for the first message, then for each continuation a resume
// batch built by the package's own buildResumeArray from agent.pendingInterrupts.
//
// Usage: node agui_client.mjs URL THREAD_ID > report.json
//
// The package is looked up in $PAUSEPOINT_NODE_MODULES (a node_modules folder), else in
// ./node_modules next to this script (`npm ci` here installs the pinned version).
//
// The conversation: "Refund order 42"; the approval it pauses on is answered
// {approved: true} (echoing the interrupt's metadata, binding included); the question
// that follows is answered {speed: "fast"}, which must fit its responseSchema.
//
// stdout: {"version", "runs": [RUN, ...], "messages": [...], "state": {...},
//          "pendingAfter": N}, one RUN per runAgent call:
//          {"events": [types], "errors": [RUN_ERROR codes], "outcome": TYPE,
//           "interrupts": [the Interrupt objects the client kept as pending]}
// A failure is written to stderr and the exit status is 1.

import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const modules = process.env.PAUSEPOINT_NODE_MODULES || join(here, 'node_modules')
const packageDir = join(modules, '@ag-ui', 'client')
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))
const client = await import(pathToFileURL(join(packageDir, manifest.exports['.'].import)).href)
const { HttpAgent, buildResumeArray } = client

const [url, threadId] = process.argv.slice(2)
if (!url || !threadId) {
  throw new Error('usage: node agui_client.mjs URL THREAD_ID')
}

const agent = new HttpAgent({ url, threadId })
const runs = []

async function run(parameters) {
  const record = { events: [], errors: [], outcome: null, interrupts: [] }
  runs.push(record)
  await agent.runAgent(parameters, {
    onEvent({ event }) {
      record.events.push(event.type)
    },
    onRunErrorEvent({ event }) {
      record.errors.push(event.code ?? null)
    },
    onRunFinishedEvent(params) {
      record.outcome = params.outcome
    },
  })
  record.interrupts = structuredClone(agent.pendingInterrupts)
  return record
}

function only(record, what) {
  if (record.interrupts.length !== 1) {
    throw new Error(`expected one ${what}, the client holds ${record.interrupts.length}`)
  }
  return record.interrupts[0]
}

agent.addMessage({ id: 'user-1', role: 'user', content: 'Refund order 42' })
const asked = await run({})
const approval = only(asked, 'approval')
const approved = await run({
  resume: buildResumeArray(agent.pendingInterrupts, {
    [approval.id]: {
      status: 'resolved',
      payload: { approved: true },
      metadata: approval.metadata,
    },
  }),
})
const question = only(approved, 'question')
await run({
  resume: buildResumeArray(agent.pendingInterrupts, {
    [question.id]: { status: 'resolved', payload: { speed: 'fast' } },
  }),
})

process.stdout.write(
  JSON.stringify({
    version: manifest.version,
    runs,
    messages: agent.messages,
    state: agent.state,
    pendingAfter: agent.pendingInterrupts.length,
  }),
)
