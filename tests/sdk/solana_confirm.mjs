// A world Solana deposit sent and confirmed with the public @solana/web3.js (pinned in
// tools/package.json), as the service's SDK Solana adapter does: the quote's instructions and
// lookup tables compiled into a v0 message, signed, sent, then `confirmTransaction` on a
// Connection whose websocket is the `wsRpcUrl` /chains names; `onSignature` (the websocket
// alone) must fire too. Prints one JSON line: {signature, confirmed, notified, err}.
import { createRequire } from "node:module";
import path from "node:path";

const args = JSON.parse(process.argv[2]);
const require = createRequire(path.join(args.tools_dir, "package.json"));
const web3 = require("@solana/web3.js");

const chains = await (await fetch(`${args.service_url}/chains`)).json();
const chain = chains.chains.find((c) => c.id === args.chain_id);
const connection = new web3.Connection(chain.httpRpcUrl, {
  commitment: "confirmed",
  wsEndpoint: chain.wsRpcUrl,
});
const payer = web3.Keypair.fromSecretKey(Uint8Array.from(args.secret_key));
const quote = await (
  await fetch(`${args.service_url}/quote/v2`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      user: payer.publicKey.toBase58(),
      recipient: args.recipient,
      originChainId: args.chain_id,
      destinationChainId: 8453,
      originCurrency: "11111111111111111111111111111111",
      destinationCurrency: "0x0000000000000000000000000000000000000000",
      amount: "100000000",
      tradeType: "EXACT_INPUT",
    }),
  })
).json();
const data = quote.steps[0].items[0].data;
const instructions = data.instructions.map(
  (ix) =>
    new web3.TransactionInstruction({
      programId: new web3.PublicKey(ix.programId),
      keys: ix.keys.map((k) => ({
        pubkey: new web3.PublicKey(k.pubkey),
        isSigner: k.isSigner,
        isWritable: k.isWritable,
      })),
      data: Buffer.from(ix.data, "hex"),
    }),
);
const tables = [];
for (const address of data.addressLookupTableAddresses) {
  const table = (await connection.getAddressLookupTable(new web3.PublicKey(address))).value;
  if (table) tables.push(table);
}
const latest = await connection.getLatestBlockhash();
const message = new web3.TransactionMessage({
  payerKey: payer.publicKey,
  recentBlockhash: latest.blockhash,
  instructions,
}).compileToV0Message(tables);
const tx = new web3.VersionedTransaction(message);
tx.sign([payer]);
const sent = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: false });
const heard = new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error("no signatureNotification")), 20000);
  connection.onSignature(
    sent,
    (result) => {
      clearTimeout(timer);
      resolve(result);
    },
    "confirmed",
  );
});
const confirmed = await connection.confirmTransaction(
  { signature: sent, blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight },
  "confirmed",
);
const viaSocket = await heard;
console.log(
  JSON.stringify({
    signature: sent,
    requestId: quote.steps[0].requestId,
    confirmed: confirmed.value,
    notified: viaSocket,
  }),
);
process.exit(0);
