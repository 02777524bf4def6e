// turnlaw adapter protocol v1 for runtime.mjs: JSON lines on stdin and stdout.
//
//   python -m conformance run \
//       --impl "cmd:node examples/js-runtime/adapter.mjs"
//
// Requests are handled as they arrive, without waiting for earlier ones, so a run held
// at the fake provider does not keep a second request from being refused as in flight.
// The adapter translates and never repairs: refusals are the runtime's own errors,
// mapped to the suite's kinds. stdout carries only replies; logs go to stderr.

import { createInterface } from "node:readline";

import { Agent } from "./runtime.mjs";

const START = {
  implementation: {
    name: "turnlaw js-runtime example",
    language: "javascript",
    version: "0.1.0",
    homepage: null, // an example inside turnlaw: nothing published of its own
    issue_tracker: null,
  },
  capabilities: ["follow_up", "continue_from", "named_agents", "call_service"],
  dialects: ["openai-chat"],
  deliveries: ["whole"], // runtime.mjs reads one JSON body per call; it never streams
  revision: 2, // written against protocol v1 revision 2 (docs/adapter-protocol.md)
  notes: [
    "run(): agent.run(message, { continueFrom }), a new message list from the checkpoint or none",
    "follow_up(): agent.followUp(message), the last completed run's live message list",
  ],
};

const REFUSALS = {
  NoConversationError: "no_conversation",
  ConversationMismatchError: "mismatch",
  RunInFlightError: "run_in_flight",
  InvalidCheckpointError: "invalid_checkpoint",
};

const agents = new Map();

function reply(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function agentFor(request) {
  const agent = agents.get(request.agent);
  if (!agent) throw new Error(`no open agent '${request.agent}': create it with agent.create`);
  return agent;
}

async function dispatch(request) {
  switch (request.op) {
    case "start":
      if (request.version !== 1) throw new Error(`protocol version ${request.version} unknown`);
      return START;
    case "agent.create": {
      const { spec } = request;
      if (spec.dialect !== "openai-chat") throw new Error(`dialect ${spec.dialect} unsupported`);
      agents.set(
        request.agent,
        new Agent({
          id: spec.id,
          system: spec.system,
          model: spec.model,
          baseUrl: spec.base_url,
          apiKey: spec.api_key,
          tools: spec.tools,
        }),
      );
      return null;
    }
    case "run":
      // identity and session_id are ignored: this runtime does not declare them.
      return agentFor(request).run(request.message, { continueFrom: request.continue_from });
    case "follow_up":
      return agentFor(request).followUp(request.message);
    case "checkpoint":
      return agentFor(request).checkpoint();
    case "abandon_pause":
      agentFor(request);
      return null; // this runtime never pauses, so there is never anything to drop
    case "can_explain":
      agentFor(request);
      return false;
    case "last_identity":
      agentFor(request);
      return null;
    case "agent.close":
      agents.delete(request.agent);
      return null;
    case "stop":
      return null;
    default:
      throw new Error(`op '${request.op}' is not implemented by this adapter`);
  }
}

async function handle(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    console.error(`turnlaw js adapter: not JSON: ${line.slice(0, 200)}`);
    return;
  }
  try {
    const result = await dispatch(request);
    reply({ seq: request.seq, status: "ok", result: result ?? null });
  } catch (error) {
    const kind = REFUSALS[error.name];
    if (kind) {
      reply({ seq: request.seq, status: "refused", kind, message: error.message });
    } else if (error.name === "ProviderError") {
      // The run failed; this runtime hands back no checkpoint of a failed run (the
      // agent keeps its last completed one), so there is none to report.
      reply({ seq: request.seq, status: "failed", message: error.message, checkpoint: null });
    } else {
      reply({
        seq: request.seq,
        status: "error",
        message: `${error.name}: ${error.message}`,
        traceback: error.stack ?? "",
      });
    }
  }
  if (request.op === "stop") process.exit(0);
}

createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim()) handle(line);
});
