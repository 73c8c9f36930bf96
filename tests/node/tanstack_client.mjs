// Drives a pausepoint AG-UI server with the released @tanstack/ai-client, as a web
// developer would: a ChatClient over its default fetchServerSentEvents connection, the
// server's approval tools declared from its GET description, and the client's own
// resolveInterrupt calls, after which the client POSTs each continuation by itself.
// No adapter code: the only wrapper is a fetchClient that records what goes by.
//
// Usage: node tanstack_client.mjs SPEC_JSON > report.json   (or the spec on stdin)
//
// The packages are looked up in $PAUSEPOINT_NODE_MODULES (a node_modules folder), else
// in ./node_modules next to this script (`npm ci` here installs the pinned versions).
//
// SPEC: {"url", "threadId", "message": the user's text,
//        "steps": [STEP, ...], "timeoutMs"?: how long to wait for the client to settle}
// STEP: {"kind": "tool-approval", "approved": BOOL, "editedArgs"?: {...}}
//       {"kind": "generic", "value": ANY}
//       Each step resolves the first interrupt of that kind the client can resolve,
//       then waits until the client is neither resuming nor loading. A step that finds
//       no such interrupt ends the conversation there ("stopped" says why).
//
// stdout: {"versions", "description": the GET answer, "tools": [declared names],
//          "states": [STATE after the message, then after each step],
//          "resolved": [interrupt id per step], "stopped": null | {"step", "reason"},
//          "requests": [{"method", "url", "headers", "bodyText", "body", "status",
//                        "events": [parsed SSE data]}] (every fetch the client made),
//          "messages": [{"id", "role", "text", "parts"}], "status", "error"}
// STATE:  {"interrupts": [{"id", "kind", "canResolve", "status", "errors", "reason",
//          "message", "toolName", "toolCallId", "originalArgs", "interruptedRunId",
//          "generation"}], "interruptErrors": [...], "resuming", "isLoading", "status",
//          "error", "timedOut"}
// A failure of the script itself goes to stderr and the exit status is 1.

import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const modules = process.env.PAUSEPOINT_NODE_MODULES || join(here, 'node_modules')

async function load(name, subpath = '.') {
  const packageDir = join(modules, ...name.split('/'))
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))
  const entry = manifest.exports[subpath].import
  return { version: manifest.version, module: await import(pathToFileURL(join(packageDir, entry)).href) }
}

const clientPackage = await load('@tanstack/ai-client')
const aiPackage = await load('@tanstack/ai', './client')
const { ChatClient, fetchServerSentEvents } = clientPackage.module
const { toolDefinition } = aiPackage.module

const spec = JSON.parse(process.argv[2] ?? readFileSync(0, 'utf8'))
if (!spec.url || !spec.threadId || !spec.message) {
  throw new Error('the spec needs url, threadId and message')
}
const timeoutMs = spec.timeoutMs ?? 120000

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const plain = (value) => (value === undefined ? null : JSON.parse(JSON.stringify(value)))

function sseData(text) {
  const events = []
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
    if (data.length > 0) {
      try {
        events.push(JSON.parse(data.join('\n')))
      } catch {
        events.push({ unparsed: data.join('\n') })
      }
    }
  }
  return events
}

// What the client sent and what came back, read from a clone so the client's own
// reading of the stream is untouched.
const requests = []
const reading = []
async function recordingFetch(input, init = {}) {
  const entry = {
    method: init.method ?? 'GET',
    url: String(input),
    headers: plain(init.headers ?? {}),
    bodyText: typeof init.body === 'string' ? init.body : null,
    body: typeof init.body === 'string' ? JSON.parse(init.body) : null,
    status: null,
    events: [],
  }
  requests.push(entry)
  const response = await fetch(input, init)
  entry.status = response.status
  reading.push(
    response
      .clone()
      .text()
      .then((text) => {
        entry.events = sseData(text)
      })
      .catch((error) => {
        entry.readError = String(error)
      }),
  )
  return response
}

const described = await fetch(spec.url, { headers: { Accept: 'application/json' } })
const descriptionText = await described.text()
if (!described.ok) {
  throw new Error(`GET ${spec.url} answered ${described.status}: ${descriptionText}`)
}
const description = JSON.parse(descriptionText)
const approvalTools = Array.isArray(description.toolDefinitions)
  ? description.toolDefinitions
  : (description.actions ?? []).filter((action) => action.needsApproval === true)
const tools = approvalTools.map((tool) =>
  toolDefinition({
    name: tool.name,
    description: tool.description ?? '',
    needsApproval: true,
    ...(tool.inputSchema !== undefined && tool.inputSchema !== null
      ? { inputSchema: tool.inputSchema }
      : {}),
  }).client(),
)

const client = new ChatClient({
  threadId: spec.threadId,
  connection: fetchServerSentEvents(spec.url, { fetchClient: recordingFetch }),
  tools,
})

function summary(item) {
  return plain({
    id: item.id,
    kind: item.kind,
    canResolve: item.canResolve,
    status: item.status,
    errors: item.errors,
    reason: item.reason,
    message: item.message,
    toolName: item.toolName,
    toolCallId: item.toolCallId,
    originalArgs: item.originalArgs,
    interruptedRunId: item.interruptedRunId,
    generation: item.generation,
  })
}

async function settled() {
  const deadline = Date.now() + timeoutMs
  let timedOut = false
  while (client.getInterruptState().resuming || client.getIsLoading()) {
    if (Date.now() > deadline) {
      timedOut = true
      break
    }
    await sleep(20)
  }
  const state = client.getInterruptState()
  return {
    interrupts: state.interrupts.map(summary),
    interruptErrors: plain(state.interruptErrors),
    resuming: state.resuming,
    isLoading: client.getIsLoading(),
    status: client.getStatus(),
    error: client.getError()?.message ?? null,
    timedOut,
  }
}

const states = []
const resolved = []
let stopped = null

await client.sendMessage(spec.message)
states.push(await settled())
for (const [index, step] of (spec.steps ?? []).entries()) {
  const item = client.getInterrupts().find((i) => i.kind === step.kind && i.canResolve)
  if (item === undefined) {
    stopped = { step: index, reason: `the client holds no ${step.kind} interrupt it can resolve` }
    break
  }
  resolved.push(item.id)
  if (step.kind === 'tool-approval') {
    item.resolveInterrupt(
      step.approved,
      step.editedArgs === undefined ? undefined : { editedArgs: step.editedArgs },
    )
  } else {
    item.resolveInterrupt(step.value)
  }
  states.push(await settled())
}

await Promise.all(reading)
const messages = client.getMessages().map((message) => ({
  id: message.id,
  role: message.role,
  text: message.parts
    .filter((part) => part.type === 'text')
    .map((part) => part.content)
    .join(''),
  parts: plain(message.parts),
}))
const report = {
  versions: { '@tanstack/ai-client': clientPackage.version, '@tanstack/ai': aiPackage.version },
  description,
  tools: tools.map((tool) => tool.name),
  states,
  resolved,
  stopped,
  requests,
  messages,
  status: client.getStatus(),
  error: client.getError()?.message ?? null,
}
client.dispose()
// The client may keep a subscription timer alive after dispose; the report is all.
process.stdout.write(JSON.stringify(report), () => process.exit(0))
