#!/usr/bin/env bash
# Quick start: from a running sandbox service (`npm start`) to a verified payment webhook.
# Run it from anywhere; it uses the repository it lives in. Needs curl and jq.
#   SVC_URL   the service (default http://localhost:$PORT, PORT default 8000)
#   SVC_DATA_DIR  the service's data directory (default ./data: the owner's e-mail code is read there)
set -euo pipefail
cd "$(dirname "$0")/.."
SVC_URL=${SVC_URL:-http://localhost:${PORT:-8000}}
work=$(mktemp -d)
receiver_pid=
cleanup() {
  [[ -n $receiver_pid ]] && kill "$receiver_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# 1. A local webhook receiver that verifies signatures (examples/webhook-receiver.mjs).
SVC_WEBHOOK_SECRET_FILE="$work/secret" node examples/webhook-receiver.mjs >"$work/receiver.log" 2>&1 &
receiver_pid=$!
for _ in $(seq 1 50); do grep -q listening "$work/receiver.log" && break; sleep 0.1; done
WEBHOOK_URL=$(sed -n 's/^listening on //p' "$work/receiver.log")
echo "receiver: $WEBHOOK_URL"

# 2. A sandbox client with an owner, an activated opco (the bootstrap waits for the sandbox's
#    SVC_SANDBOX_OPCO_ACTIVATION_SECONDS), a project, a payer, an API credential and the webhook.
eval "$(node bin/svc.mjs sandbox bootstrap --url "$SVC_URL" --webhook-url "$WEBHOOK_URL")"
printf '%s' "$SVC_WEBHOOK_SECRET" >"$work/secret"

# 3. Exchange the API credential for an access token (role operations: payments, no admin).
TOKEN=$(curl -sf "$SVC_API_URL/auth/api-token" -H 'content-type: application/json' \
  -d "{\"api_key\":\"$SVC_API_KEY\",\"api_secret\":\"$SVC_API_SECRET\"}" | jq -r .access_token)
H="authorization: Bearer $TOKEN"

# 4. A payment link (retrying with the same X-Idempotency-Key never makes a second one).
ORDER="order-$(date +%s)-$RANDOM"
PAYMENT=$(curl -sf "$SVC_API_URL/checkout/paylink" -H "$H" -H "X-Idempotency-Key: $ORDER" \
  -H 'content-type: application/json' \
  -d "{\"amount\":\"12.50\",\"currency\":\"EUR\",\"project_id\":\"$SVC_PROJECT_ID\",\"user_id\":\"$SVC_USER_ID\",\"metadata\":{\"order\":\"$ORDER\"}}")
TX=$(jq -r .transaction_id <<<"$PAYMENT")
echo "payment $TX: $(jq -r .checkout_url <<<"$PAYMENT")"

# 5. Instead of paying in a browser: the sandbox bank walks the payment to success.
curl -sf "$SVC_API_URL/sandbox/transactions/$TX/simulate" -H "$H" -H 'content-type: application/json' \
  -d '{"outcome":"success"}' | jq -r '"status: \(.status)"'

# 6. Wait for the signed payment.status_changed webhook.
for _ in $(seq 1 300); do
  if grep -q "verified payment.status_changed success $TX" "$work/receiver.log"; then
    grep "$TX" "$work/receiver.log"
    echo "done: verified payment webhook for $TX"
    exit 0
  fi
  sleep 0.1
done
echo "no verified webhook for $TX; receiver log:" >&2
cat "$work/receiver.log" >&2
exit 1
