#!/bin/sh
# Makes the certificates of a TLS Temporal frontend in DIR (default ./tls), the layout
# docker-compose.tls.yml mounts and the secured cluster test uses:
#   ca.crt, ca.key          a CA (keep ca.key offline in production)
#   server.crt, server.key  the server's certificate, signed by the CA, for SERVER_NAMES
#                           (default "DNS:localhost,IP:127.0.0.1"; add the host clients dial):
#                           the frontend's, and the one its services show each other (internode)
#   client.crt, client.key  a client certificate signed by the CA (for mTLS)
# ECDSA P-256 keys, valid DAYS days (default 365). Needs openssl. Existing files are overwritten.
set -eu
dir="${1:-./tls}"
names="${SERVER_NAMES:-DNS:localhost,IP:127.0.0.1}"
days="${DAYS:-365}"
mkdir -p "$dir"
cd "$dir"

key() { openssl ecparam -name prime256v1 -genkey -noout -out "$1.key"; }

# sign NAME SUBJECT EXTENSIONS: a certificate for NAME.key signed by the CA.
sign() {
  key "$1"
  openssl req -new -key "$1.key" -subj "$2" -out "$1.csr"
  printf '%b' "$3" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days "$days" \
    -extfile "$1.ext" -out "$1.crt" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}

key ca
openssl req -x509 -new -key ca.key -subj "/CN=${CA_NAME:-amsflow Temporal CA}" -days "$days" -out ca.crt \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
sign server "/CN=temporal-frontend" "subjectAltName=$names\nextendedKeyUsage=serverAuth,clientAuth\nbasicConstraints=CA:FALSE\n"
sign client "/CN=${CLIENT_NAME:-amsflow-worker}" "extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n"
rm -f ca.srl
chmod 600 ./*.key
echo "make-certs: ca.crt, server.crt/key ($names), client.crt/key in $(pwd)"
