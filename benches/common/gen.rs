//! A generator of large, realistic synthetic pack indexes, shared by the `gen_index` example,
//! the benches and the scale tests (each includes this file with `#[path]`).
#![allow(dead_code)]

use serde_json::{Value, json};

/// Sizes of a generated index; unset counts scale with the number of agents.
pub struct Spec {
    agents: usize,
    tools: usize,
    flows: usize,
    blocks: usize,
}

/// A tiny deterministic generator (xorshift), so indexes are reproducible without a crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

impl Spec {
    /// Sizes; unset (zero) counts of tools, flows and blocks scale with the agents.
    pub fn new(agents: usize, tools: usize, flows: usize, blocks: usize) -> Spec {
        Spec {
            agents,
            tools: if tools == 0 {
                (agents / 5).max(10)
            } else {
                tools
            },
            flows: if flows == 0 {
                (agents / 20).max(2)
            } else {
                flows
            },
            blocks: if blocks == 0 {
                (agents / 10).max(2)
            } else {
                blocks
            },
        }
    }

    fn tool_id(i: usize) -> String {
        format!("gen.tool-{i:06}")
    }

    /// The index as JSON (serialize with `runstart::index::canonical_text`).
    pub fn index(&self) -> Value {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let tools: Vec<Value> = (0..self.tools)
            .flat_map(|i| {
                // Two versions of every tool: a patch line and a new major.
                [format!("1.{}.{}", i % 7, i % 3), format!("2.0.{}", i % 5)]
                    .into_iter()
                    .map(move |version| {
                        json!({
                            "id": Spec::tool_id(i),
                            "version": version,
                            "description": format!("Generated tool {i}."),
                            "input": {"type": "object", "properties": {"id": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}}, "required": ["id"], "additionalProperties": false},
                            "output": {"type": "object", "properties": {"ok": {"type": "boolean"}, "items": {"type": "array", "items": {"type": "string"}}}, "required": ["ok"]},
                            "mutating": i % 3 == 0,
                            "modulePath": format!("tools/t{}.ts", i / 10),
                        })
                    })
            })
            .collect();
        let settings_blocks = self.blocks / 2 + 1;
        let mut blocks = Vec::new();
        for b in 0..self.blocks.max(2) {
            if b % 2 == 0 {
                blocks.push(json!({
                    "id": format!("gen.settings-{b:05}"), "version": "1.0.0", "kind": "settings",
                    "modulePath": format!("blocks/s{b}.json"),
                    "content": {"values": {"tone": "warm", "maxWords": 150},
                        "schema": {"type": "object", "properties": {"tone": {"enum": ["warm", "formal"]}, "maxWords": {"type": "integer", "minimum": 10, "maximum": 500}}, "required": ["tone"]}}
                }));
            } else {
                blocks.push(json!({
                    "id": format!("gen.prompt-{b:05}"), "version": "1.2.0", "kind": "prompt",
                    "modulePath": format!("blocks/p{b}.json"),
                    "content": {"template": "Help {{ customer }} with {{ topic }}.{% if urgent %} Be quick.{% endif %}",
                        "parameters": [{"name": "customer", "type": "string"}, {"name": "topic", "type": "string"}, {"name": "urgent", "type": "boolean", "required": false, "default": false}]}
                }));
            }
        }
        blocks.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
        let ranges = [
            "^1.0.0",
            "~2.0.0",
            "1.x",
            ">=1.0.0 <2.0.0",
            "^1.0.0 || ^2.0.0",
            "1.0.0 - 2.0.0",
            "*",
            "2.0.x",
        ];
        let agents: Vec<Value> = (0..self.agents)
            .map(|a| {
                let n_tools = 3 + rng.below(6);
                let tool_refs: Vec<Value> = (0..n_tools)
                    .map(|k| json!({"id": Spec::tool_id((a * 7 + k * 13) % self.tools), "version": ranges[rng.below(ranges.len())]}))
                    .collect();
                let settings_id = format!("gen.settings-{:05}", 2 * (a % settings_blocks.min(self.blocks.max(2).div_ceil(2))));
                json!({
                    "id": format!("gen.agent-{a:06}"), "version": "1.0.0", "name": format!("Agent {a}"),
                    "modulePath": format!("agents/a{}.ts", a / 10),
                    "instructions": format!("You are agent {a} for {{{{ company }}}}. Today is {{{{ today }}}}.\n{{% if vip %}}Treat {{{{ customer | upcase }}}} as a VIP.{{% endif %}}\n{{% for item in items %}}- {{{{ item }}}}\n{{% endfor %}}Tone: {{{{ settings[\"{settings_id}\"].tone }}}}."),
                    "parameters": [
                        {"name": "company", "type": "string", "default": "Acme"},
                        {"name": "customer", "type": "string"},
                        {"name": "vip", "type": "boolean", "required": false, "default": false},
                        {"name": "items", "type": "string", "required": false, "default": ""}
                    ],
                    "settings": [{"id": settings_id, "version": "^1.0.0"}],
                    "capabilities": [{"needs": [{"feature": "tool-use"}, {"contextWindow": {"op": ">=", "value": 16000}}], "prefer": [{"feature": "lower-cost", "weight": 1}]}],
                    "tools": tool_refs,
                    "guardrails": ["gen.guard-a"],
                })
            })
            .collect();
        let flows: Vec<Value> = (0..self.flows)
            .map(|f| {
                let t = |k: usize| Spec::tool_id((f * 3 + k) % self.tools);
                json!({
                    "id": format!("gen.flow-{f:05}"), "version": "1.0.0", "kernelPayloadVersion": 1,
                    "modulePath": format!("flows/f{f}.ts"),
                    "nodes": [
                        {"id": "load", "kind": "tool", "ref": t(0)},
                        {"id": "fan", "kind": "fanout", "convergence": "all-succeed", "branches": [
                            {"branchId": "a", "handler": t(1), "outputSchema": {"type": "object"}},
                            {"branchId": "b", "handler": t(2), "outputSchema": {"type": "object"}}]},
                        {"id": "each", "kind": "loop", "loopKind": "foreach", "iterateOver": {"path": "nodeOutputs.load.items"}, "maxIterations": 20,
                         "outputSchema": {"type": "object"},
                         "body": {"nodes": [{"id": format!("step-{f}"), "kind": "tool", "ref": t(3)}],
                                  "edges": [{"id": "b0", "from": "$loop-start", "to": format!("step-{f}")}, {"id": "b1", "from": format!("step-{f}"), "to": "$loop-end"}]}},
                        {"id": "ask", "kind": "agent", "ref": format!("gen.agent-{:06}", f % self.agents.max(1))}
                    ],
                    "edges": [
                        {"id": "e0", "from": "$start", "to": "load"}, {"id": "e1", "from": "load", "to": "fan"},
                        {"id": "e2", "from": "fan", "to": "each"}, {"id": "e3", "from": "each", "to": "ask"}, {"id": "e4", "from": "ask", "to": "$end"}
                    ]
                })
            })
            .collect();
        json!({
            "v": 1, "packId": "gen", "packVersion": "1.0.0", "artifactVersion": "20261130.1",
            "publishedAt": "2026-11-30T12:00:00.000Z",
            "tools": tools, "agents": agents, "flows": if self.agents == 0 { vec![] } else { flows }, "blocks": blocks,
            "guardrails": [
                {"id": "gen.guard-a", "kind": "zero-llm", "action": {"on-violation": "halt"}, "checkModulePath": "guardrails/a.ts"},
                {"id": "gen.guard-b", "kind": "zero-llm", "action": {"on-violation": "warn"}, "checkModulePath": "guardrails/b.ts"}
            ],
            "env": {"required": ["API_URL"], "optional": []}
        })
    }
}
