import type { ToolDefinition } from '../../../../schemas/index.ts';
import { DONE_GATE } from './gate-bridge.ts';

/** The tool through which the crystal hands code to a code circle, and its one argument. */
export const CODE_TOOL = 'js';
export const CODE_ARGUMENT = 'code';

/**
 * The parameter names of a gate in the order the sandbox takes them positionally: the order of
 * `parameters.properties`. The loop uses the same order to turn positional arguments into the named
 * arguments object a gate definition describes.
 */
export function gateParameterNames(definition: ToolDefinition): string[] {
  const properties = definition.parameters['properties'];
  return properties && typeof properties === 'object' ? Object.keys(properties) : [];
}

/** `read(path: string, encoding?: string)` from a gate's JSON Schema. */
export function gateSignature(definition: ToolDefinition): string {
  const properties = (definition.parameters['properties'] ?? {}) as Record<string, { type?: unknown }>;
  const required = new Set(Array.isArray(definition.parameters['required']) ? (definition.parameters['required'] as unknown[]) : []);
  const params = gateParameterNames(definition).map((name) => {
    const type = properties[name]?.type;
    const typeText = Array.isArray(type) ? type.join(' | ') : typeof type === 'string' ? type : 'any';
    return `${name}${required.has(name) ? '' : '?'}: ${typeText}`;
  });
  return `${definition.name}(${params.join(', ')})`;
}

/**
 * CIRCLE-11: the capability presentation of a code circle. The crystal gets one tool, `js(code)`,
 * and a "### HOST FUNCTIONS" section naming every gate as a synchronous function with its
 * parameters and description, how `done` ends the work (LOOP-3, CIRCLE-8), and that variables
 * persist between turns (CIRCLE-9). The same text is the tool's description and the prompt section,
 * so either placement presents the whole contract.
 */
export function presentCodeMedium(gates: readonly ToolDefinition[]): { tool: ToolDefinition; prompt: string } {
  const others = gates.filter((gate) => gate.name !== DONE_GATE);
  const doneGate = gates.find((gate) => gate.name === DONE_GATE);
  const lines = [
    '### HOST FUNCTIONS',
    'Run JavaScript by calling the `js` tool with your program in `code`. The host functions below are',
    'ordinary synchronous functions in that program: call them and use their return values directly, no',
    '`await` needed. Arguments and results are copied as JSON. A failed call throws an Error you can catch.',
    '',
    ...others.map((gate) => `- \`${gateSignature(gate)}\`${gate.description ? ` — ${oneLine(gate.description)}` : ''}`),
    `- \`done(answer: any)\` — finish the task with \`answer\` as the result. Your program stops right there;${
      doneGate?.description ? ` ${oneLine(doneGate.description)}` : ''
    }`,
    '  nothing after the call runs, even inside try/catch.',
    '',
    'State persists between turns: top-level variables and functions you define stay available to later',
    'programs (a top-level `const`/`let` cannot be declared again; assign to a new name instead). A program',
    'that uses top-level `await` runs inside an async function, so its declarations do not persist.',
    'Each turn shows the results of your host-function calls in order, console output, and the value of',
    'the last expression (or the error thrown). Limits: time, memory and output size are bounded.',
  ];
  const prompt = lines.join('\n');
  return {
    tool: {
      name: CODE_TOOL,
      description: prompt,
      parameters: {
        type: 'object',
        properties: { [CODE_ARGUMENT]: { type: 'string', description: 'The JavaScript program to run.' } },
        required: [CODE_ARGUMENT],
        additionalProperties: false,
      },
    },
    prompt,
  };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
