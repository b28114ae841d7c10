/**
 * A small checker of the fake forge against Forgejo's own swagger file
 * (test/fixtures/forgejo/swagger.v1.json, v15.0.3): does a route exist with
 * that method, does a JSON answer fit the response schema for its status
 * (required fields present, no field the schema doesn't declare, scalar
 * types right), does a request use only declared query parameters and body
 * fields. `$ref`s are resolved; `null` passes for any field, since Go
 * pointers marshal to it and swagger 2.0 can't say which fields are pointers.
 */
import { readFileSync } from 'node:fs'

type Json = Record<string, unknown>

export type Swagger = { paths: Json; definitions: Json; responses: Json }

export const SWAGGER_PATH = new URL('../../fixtures/forgejo/swagger.v1.json', import.meta.url)

/**
 * Fields real Forgejo sends that the spec leaves out, per definition
 * (docs/forgejo.md §6.5: every user object carries `username`).
 */
const UNDOCUMENTED: Record<string, string[]> = { User: ['username'] }

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function loadSwagger(): Swagger {
  const parsed: unknown = JSON.parse(readFileSync(SWAGGER_PATH, 'utf8'))
  if (!isRecord(parsed) || !isRecord(parsed.paths) || !isRecord(parsed.definitions) || !isRecord(parsed.responses)) {
    throw new Error('swagger.v1.json has no paths, definitions or responses')
  }
  return { paths: parsed.paths, definitions: parsed.definitions, responses: parsed.responses }
}

/** `/users/{username}/tokens/{token}` and `/users/{username}/tokens/{id}` are the same route (docs/forgejo.md §6.7). */
function shape(template: string): string {
  return template.replace(/\{[^}]+\}/g, '{}')
}

export function findOperation(swagger: Swagger, method: string, template: string): Json | null {
  for (const [path, item] of Object.entries(swagger.paths)) {
    if (shape(path) !== shape(template) || !isRecord(item)) continue
    const operation = item[method.toLowerCase()]
    return isRecord(operation) ? operation : null
  }
  return null
}

function resolve(swagger: Swagger, node: unknown): { schema: Json | null; name: string | null } {
  let current = node
  let name: string | null = null
  for (let hops = 0; hops < 20 && isRecord(current) && typeof current.$ref === 'string'; hops += 1) {
    const ref = current.$ref
    if (ref.startsWith('#/definitions/')) {
      name = ref.slice('#/definitions/'.length)
      current = swagger.definitions[name]
    } else if (ref.startsWith('#/responses/')) {
      current = swagger.responses[ref.slice('#/responses/'.length)]
    } else {
      throw new Error(`unsupported $ref ${ref}`)
    }
  }
  return { schema: isRecord(current) ? current : null, name }
}

function checkValue(swagger: Swagger, node: unknown, value: unknown, at: string, problems: string[]): void {
  const { schema, name } = resolve(swagger, node)
  if (schema === null || value === null) return
  const type = typeof schema.type === 'string' ? schema.type : isRecord(schema.properties) ? 'object' : null
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    problems.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`)
  switch (type) {
    case 'object': {
      if (!isRecord(value)) return void problems.push(`${at}: expected an object`)
      const properties = isRecord(schema.properties) ? schema.properties : {}
      for (const field of Array.isArray(schema.required) ? schema.required : []) {
        if (typeof field === 'string' && !(field in value)) problems.push(`${at}.${field}: required but missing`)
      }
      for (const [key, child] of Object.entries(value)) {
        if (key in properties) checkValue(swagger, properties[key], child, `${at}.${key}`, problems)
        else if (isRecord(schema.additionalProperties))
          checkValue(swagger, schema.additionalProperties, child, `${at}.${key}`, problems)
        else if (schema.additionalProperties !== true && !(UNDOCUMENTED[name ?? '']?.includes(key) ?? false)) {
          problems.push(`${at}.${key}: not in the schema${name === null ? '' : ` ${name}`}`)
        }
      }
      return
    }
    case 'array':
      if (!Array.isArray(value)) return void problems.push(`${at}: expected an array`)
      for (const [i, item] of value.entries()) checkValue(swagger, schema.items, item, `${at}[${i}]`, problems)
      return
    case 'string':
      if (typeof value !== 'string') problems.push(`${at}: expected a string`)
      return
    case 'integer':
      if (!Number.isInteger(value)) problems.push(`${at}: expected an integer`)
      return
    case 'number':
      if (typeof value !== 'number') problems.push(`${at}: expected a number`)
      return
    case 'boolean':
      if (typeof value !== 'boolean') problems.push(`${at}: expected a boolean`)
      return
    default:
      return
  }
}

/** Problems with an answer of `status` to `method template`; `undeclared status` when the spec lists no such status. */
export function checkResponse(
  swagger: Swagger,
  method: string,
  template: string,
  status: number,
  body: unknown,
): string[] {
  const operation = findOperation(swagger, method, template)
  if (operation === null) return [`${method} ${template}: not in the swagger file`]
  const responses = isRecord(operation.responses) ? operation.responses : {}
  const declared = responses[String(status)] ?? responses.default
  if (declared === undefined) return [`${method} ${template}: undeclared status ${status}`]
  const { schema } = resolve(swagger, declared)
  const problems: string[] = []
  if (schema !== null && schema.schema !== undefined) checkValue(swagger, schema.schema, body, '$', problems)
  return problems.map((p) => `${method} ${template} ${status}: ${p}`)
}

/** Problems with a request: query parameters and body fields the spec doesn't declare, required body fields missing. */
export function checkRequest(
  swagger: Swagger,
  method: string,
  template: string,
  query: Record<string, string>,
  body: unknown,
): string[] {
  const operation = findOperation(swagger, method, template)
  if (operation === null) return [`${method} ${template}: not in the swagger file`]
  const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []).filter(isRecord)
  const problems: string[] = []
  for (const key of Object.keys(query)) {
    if (!parameters.some((p) => p.in === 'query' && p.name === key))
      problems.push(`query parameter ${key} is not declared`)
  }
  const bodyParameter = parameters.find((p) => p.in === 'body')
  if (bodyParameter !== undefined && body !== null) checkValue(swagger, bodyParameter.schema, body, '$', problems)
  if (bodyParameter === undefined && body !== null) problems.push('a body the operation does not take')
  return problems.map((p) => `${method} ${template} request: ${p}`)
}

/** Problems with `value` as an instance of definition `name` (for answers the spec documents elsewhere, e.g. a directory listing). */
export function checkDefinition(swagger: Swagger, name: string, value: unknown): string[] {
  if (swagger.definitions[name] === undefined) return [`no definition ${name}`]
  const problems: string[] = []
  checkValue(swagger, { $ref: `#/definitions/${name}` }, value, '$', problems)
  return problems.map((p) => `${name}: ${p}`)
}
