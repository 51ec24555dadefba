// Runs one transfer through the service's public TypeScript SDK against a crossdeck world.
//
//   node relay_sdk_flows.mjs '<json>'   with json = {tools_dir, service_url, venue_url, rpc:
//   {"8453": url, "999": url}, private_key, flow: "usdc-deposit" | "venue-withdrawal" |
//   "native-bridge" | "same-chain-swap", timeout_s, websocket_url?}
//
// With websocket_url the SDK runs in its websocket mode (`websocket: {enabled, url}`): it
// follows the request over the world's status websocket instead of polling. The SDK opens
// its socket only where a browser's `window.WebSocket` exists; under Node the `ws` package
// (installed with viem) stands in for it.
//
// Prints one JSON line: {flow, requestId, status, seconds, steps: [{id, kind, items}], polls}.
// Only the SDK's public API is used: createClient, configureDynamicChains (reads the world's
// /chains), getQuote, execute, with a viem wallet client on the world's RPC. Settings the world
// needs: baseApiUrl = the world's service URL, the chains from its /chains, pollingInterval 1 s
// and a bounded number of polls. The SDK posts a venue withdrawal's signed sendAsset to the
// venue's public host (hard-coded in the SDK), so that one URL is redirected to the world's
// venue through an axios interceptor on the default instance the SDK uses for it.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const args = JSON.parse(process.argv[2])

// The packages live in tools/node_modules (pinned in tools/package.json), not beside this
// script: import each through its package.json "exports" (ESM condition), as Node would.
async function importFromTools(name, subpath = '.') {
  const dir = path.join(args.tools_dir, 'node_modules', name)
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))
  let target = pkg.exports[subpath]
  while (target && typeof target === 'object') {
    target = target.import ?? target.default
  }
  return import(pathToFileURL(path.join(dir, target)).href)
}

const sdk = await importFromTools('@relayprotocol/relay-sdk')
const { configureDynamicChains } = await importFromTools('@relayprotocol/relay-sdk', './chain-utils')
const viem = await importFromTools('viem')
const { privateKeyToAccount } = await importFromTools('viem', './accounts')
const axios = (await importFromTools('axios')).default

const PUBLIC_VENUE_HOST = 'https://api.hyperliquid.xyz'
const POLL_MS = 1000

axios.interceptors.request.use((config) => {
  if (typeof config.url === 'string' && config.url.startsWith(PUBLIC_VENUE_HOST)) {
    config.url = args.venue_url + config.url.slice(PUBLIC_VENUE_HOST.length)
  }
  return config
})

function walletOn(chainId) {
  const chain = viem.defineChain({
    id: chainId,
    name: `world-${chainId}`,
    nativeCurrency: { name: 'native', symbol: 'NATIVE', decimals: 18 },
    rpcUrls: { default: { http: [args.rpc[String(chainId)]] } }
  })
  return viem.createWalletClient({
    account: privateKeyToAccount(args.private_key),
    chain,
    transport: viem.http(args.rpc[String(chainId)])
  })
}

function currencyOf(chains, chainId, symbol) {
  const chain = chains.find((c) => c.id === chainId)
  if (!chain) throw new Error(`the world's /chains has no chain ${chainId}`)
  const all = [chain.currency, ...(chain.erc20Currencies || [])]
  const found = all.find((c) => c.symbol === symbol)
  if (!found) throw new Error(`chain ${chainId} has no ${symbol} in /chains`)
  return found.address
}

function flowParameters(chains, flow, user) {
  const native = '0x0000000000000000000000000000000000000000'
  if (flow === 'usdc-deposit') {
    return {
      walletChain: 8453,
      quote: {
        chainId: 8453,
        currency: currencyOf(chains, 8453, 'USDC'),
        toChainId: 1337,
        toCurrency: currencyOf(chains, 1337, 'USDC'),
        amount: '10000000', // 10 USDC (6 decimals)
        tradeType: 'EXACT_INPUT'
      }
    }
  }
  if (flow === 'venue-withdrawal') {
    return {
      walletChain: 8453, // signs the venue actions; the domain takes the wallet's chain id
      quote: {
        chainId: 1337,
        currency: currencyOf(chains, 1337, 'USDC'),
        toChainId: 8453,
        toCurrency: currencyOf(chains, 8453, 'USDC'),
        amount: '1000000000', // 10 perps USDC (8 decimals)
        tradeType: 'EXACT_INPUT',
        options: { protocolVersion: 'v2' }
      }
    }
  }
  if (flow === 'native-bridge') {
    return {
      walletChain: 8453,
      quote: {
        chainId: 8453,
        currency: native,
        toChainId: 999,
        toCurrency: native,
        amount: '10000000000000000', // 0.01 native
        tradeType: 'EXACT_INPUT'
      }
    }
  }
  if (flow === 'same-chain-swap') {
    return {
      walletChain: 8453,
      quote: {
        chainId: 8453,
        currency: native,
        toChainId: 8453,
        toCurrency: currencyOf(chains, 8453, 'USDC'),
        amount: '10000000000000000', // 0.01 native
        tradeType: 'EXACT_INPUT'
      }
    }
  }
  throw new Error(`unknown flow ${flow}`)
}

async function statusV3(requestId) {
  const res = await fetch(`${args.service_url}/intents/status/v3?requestId=${requestId}`)
  return res.json()
}

async function main() {
  const started = Date.now()
  const deadline = started + args.timeout_s * 1000
  const options = {}
  if (args.websocket_url) {
    if (typeof globalThis.WebSocket === 'undefined') {
      const ws = await importFromTools('ws')
      globalThis.WebSocket = ws.WebSocket ?? ws.default
    }
    globalThis.window ??= globalThis
    options.websocket = { enabled: true, url: args.websocket_url }
  }
  sdk.createClient({
    baseApiUrl: args.service_url,
    source: 'crossdeck-sdk-test',
    pollingInterval: POLL_MS,
    maxPollingAttemptsBeforeTimeout: Math.ceil((args.timeout_s * 1000) / POLL_MS),
    ...options
  })
  const chains = await configureDynamicChains()
  const account = privateKeyToAccount(args.private_key)
  const { walletChain, quote: params } = flowParameters(chains, args.flow, account.address)
  const wallet = walletOn(walletChain)
  const quote = await sdk.getClient().actions.getQuote({
    ...params,
    wallet,
    user: account.address,
    recipient: account.address
  })
  const requestId = quote.steps.find((s) => s.requestId)?.requestId
  const executed = await sdk.getClient().actions.execute({ quote, wallet })
  const steps = (executed.data.steps || []).map((s) => ({
    id: s.id,
    kind: s.kind,
    items: (s.items || []).map((i) => i.status)
  }))
  let status = null
  let polls = 0
  while (Date.now() < deadline) {
    status = (await statusV3(requestId)).status
    polls += 1
    if (['success', 'failure', 'refund'].includes(status)) break
    await new Promise((r) => setTimeout(r, POLL_MS))
  }
  const seconds = (Date.now() - started) / 1000
  process.stdout.write(
    JSON.stringify({ flow: args.flow, requestId, status, seconds, steps, polls }) + '\n'
  )
}

const hardStop = setTimeout(() => {
  process.stderr.write(`timed out after ${args.timeout_s} s\n`)
  process.exit(3)
}, (args.timeout_s + 30) * 1000)
hardStop.unref()

main().then(
  () => process.exit(0),
  (err) => {
    const data = err && err.rawError ? err.rawError : err && err.response ? err.response.data : ''
    process.stderr.write(`SDK flow failed: ${err && err.stack ? err.stack : err} ${JSON.stringify(data)}\n`)
    process.exit(2)
  }
)
