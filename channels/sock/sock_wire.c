/*
 * The sock channel's byte formats (see the picture in sock.h): frame heads,
 * the three handshake messages, and the HMAC proofs in them. Pure functions
 * over buffers, called by sock_conn.c and sock.c and fuzzed by the unit
 * test: every length read from the wire is checked against a limit before
 * anything is sized or read by it.
 */
#include "channels/sock/sock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "channels/sock/sha256.h"

const unsigned char ch_sock_magic[SOCK_MAGIC_LEN] = {'C', 'N', 'L', 'S', 'O', 'C', 'K', '1'};

static const char LABEL_CONNECTOR[] = "canal-sock connector";
static const char LABEL_ACCEPTOR[] = "canal-sock acceptor";

static void put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static uint32_t get_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- frames ------------------------------------------------------------ */

void ch_sock_frame_encode(unsigned char head[SOCK_FRAME_HEAD], int type, size_t hdr_len, size_t len)
{
    put_le32(head, (uint32_t)len);
    head[4] = (unsigned char)hdr_len;
    head[5] = (unsigned char)type;
    head[6] = (unsigned char)(SOCK_FRAME_MAGIC & 0xff);
    head[7] = (unsigned char)(SOCK_FRAME_MAGIC >> 8);
}

canal_status_t ch_sock_frame_decode(const unsigned char head[SOCK_FRAME_HEAD], size_t max_payload,
                                    sock_frame_t *out)
{
    uint32_t len = get_le32(head);
    unsigned hl = head[4], type = head[5];
    unsigned magic = (unsigned)head[6] | (unsigned)head[7] << 8;

    if (magic != SOCK_FRAME_MAGIC)
        return common_err_set(CANAL_ERR_PROTO, "frame magic 0x%04x, expected 0x%04x", magic,
                              SOCK_FRAME_MAGIC);
    if (type != SOCK_FRAME_DATA && type != SOCK_FRAME_GOODBYE)
        return common_err_set(CANAL_ERR_PROTO, "frame type %u unknown", type);
    if (hl > CH_HDR_MAX)
        return common_err_set(CANAL_ERR_PROTO, "frame header length %u exceeds %d", hl, CH_HDR_MAX);
    if (len > max_payload)
        return common_err_set(CANAL_ERR_PROTO,
                              "frame payload length %u exceeds the maximum %zu "
                              "(CANAL_SOCK_MAX_PAYLOAD must be equal on every rank)",
                              len, max_payload);
    if (type == SOCK_FRAME_GOODBYE && (hl != 0 || len != 0))
        return common_err_set(CANAL_ERR_PROTO, "goodbye frame with header %u, payload %u bytes", hl,
                              len);
    out->len = len;
    out->hdr_len = hl;
    out->type = (int)type;
    out->wire_len = SOCK_FRAME_HEAD + sock_pad8(hl) + sock_pad8(len);
    return CANAL_OK;
}

int ch_sock_frame_scan(const unsigned char *buf, size_t avail, size_t max_payload,
                       sock_frame_t *out, size_t *need_out)
{
    canal_status_t err;

    *need_out = SOCK_FRAME_HEAD;
    if (avail < SOCK_FRAME_HEAD)
        return 0;
    if ((err = ch_sock_frame_decode(buf, max_payload, out)) != CANAL_OK)
        return err;
    *need_out = out->wire_len;
    return avail >= out->wire_len ? 1 : 0;
}

/* ---- handshake --------------------------------------------------------- */

static canal_status_t check_magic(const unsigned char *in, const char *what)
{
    if (memcmp(in, ch_sock_magic, SOCK_MAGIC_LEN) != 0)
        return common_err_set(CANAL_ERR_PROTO, "%s does not start with the canal sock magic", what);
    return CANAL_OK;
}

void ch_sock_hs_challenge_encode(unsigned char out[SOCK_CHALLENGE_LEN], int acceptor,
                                 const unsigned char nonce_a[SOCK_NONCE_LEN])
{
    memcpy(out, ch_sock_magic, SOCK_MAGIC_LEN);
    put_le32(out + 8, SOCK_VERSION);
    put_le32(out + 12, (uint32_t)acceptor);
    memcpy(out + 16, nonce_a, SOCK_NONCE_LEN);
}

canal_status_t ch_sock_hs_challenge_decode(const unsigned char in[SOCK_CHALLENGE_LEN],
                                           int *acceptor_out,
                                           unsigned char nonce_a_out[SOCK_NONCE_LEN])
{
    canal_status_t err;
    uint32_t version, rank;

    if ((err = check_magic(in, "challenge")) != CANAL_OK)
        return err;
    version = get_le32(in + 8);
    if (version != SOCK_VERSION)
        return common_err_set(CANAL_ERR_PROTO, "challenge of protocol version %u, expected %d",
                              version, SOCK_VERSION);
    rank = get_le32(in + 12);
    if (rank > INT32_MAX)
        return common_err_set(CANAL_ERR_PROTO, "challenge names rank %u", rank);
    *acceptor_out = (int)rank;
    memcpy(nonce_a_out, in + 16, SOCK_NONCE_LEN);
    return CANAL_OK;
}

static void proof(const unsigned char secret[SOCK_SECRET_LEN], const char *label, int with_verdict,
                  int verdict, const unsigned char nonce_a[SOCK_NONCE_LEN],
                  const unsigned char nonce_c[SOCK_NONCE_LEN], int connector, int acceptor,
                  unsigned char mac_out[SOCK_MAC_LEN])
{
    sock_hmac_t h;
    unsigned char w[4];

    ch_sock_hmac_init(&h, secret, SOCK_SECRET_LEN);
    ch_sock_hmac_update(&h, label, strlen(label));
    if (with_verdict) {
        put_le32(w, (uint32_t)verdict);
        ch_sock_hmac_update(&h, w, 4);
    }
    ch_sock_hmac_update(&h, nonce_a, SOCK_NONCE_LEN);
    ch_sock_hmac_update(&h, nonce_c, SOCK_NONCE_LEN);
    put_le32(w, (uint32_t)connector);
    ch_sock_hmac_update(&h, w, 4);
    put_le32(w, (uint32_t)acceptor);
    ch_sock_hmac_update(&h, w, 4);
    ch_sock_hmac_final(&h, mac_out);
}

void ch_sock_hs_connector_proof(const unsigned char secret[SOCK_SECRET_LEN],
                                const unsigned char nonce_a[SOCK_NONCE_LEN],
                                const unsigned char nonce_c[SOCK_NONCE_LEN], int connector,
                                int acceptor, unsigned char mac_out[SOCK_MAC_LEN])
{
    proof(secret, LABEL_CONNECTOR, 0, 0, nonce_a, nonce_c, connector, acceptor, mac_out);
}

void ch_sock_hs_acceptor_proof(const unsigned char secret[SOCK_SECRET_LEN], int verdict,
                               const unsigned char nonce_a[SOCK_NONCE_LEN],
                               const unsigned char nonce_c[SOCK_NONCE_LEN], int connector,
                               int acceptor, unsigned char mac_out[SOCK_MAC_LEN])
{
    proof(secret, LABEL_ACCEPTOR, 1, verdict, nonce_a, nonce_c, connector, acceptor, mac_out);
}

void ch_sock_hs_response_encode(unsigned char out[SOCK_RESPONSE_LEN],
                                const unsigned char secret[SOCK_SECRET_LEN],
                                const unsigned char nonce_a[SOCK_NONCE_LEN],
                                const unsigned char nonce_c[SOCK_NONCE_LEN], int connector,
                                int acceptor)
{
    memcpy(out, ch_sock_magic, SOCK_MAGIC_LEN);
    put_le32(out + 8, (uint32_t)connector);
    put_le32(out + 12, (uint32_t)acceptor);
    memcpy(out + 16, nonce_c, SOCK_NONCE_LEN);
    ch_sock_hs_connector_proof(secret, nonce_a, nonce_c, connector, acceptor, out + 48);
}

canal_status_t ch_sock_hs_response_check(const unsigned char in[SOCK_RESPONSE_LEN],
                                         const unsigned char secret[SOCK_SECRET_LEN],
                                         const unsigned char nonce_a[SOCK_NONCE_LEN], int me,
                                         int size, int *connector_out,
                                         unsigned char nonce_c_out[SOCK_NONCE_LEN])
{
    unsigned char mac[SOCK_MAC_LEN];
    uint32_t c, a;
    canal_status_t err;

    if ((err = check_magic(in, "response")) != CANAL_OK)
        return err;
    c = get_le32(in + 8);
    a = get_le32(in + 12);
    if (c >= (uint32_t)size)
        return common_err_set(CANAL_ERR_PROTO, "response claims rank %u of a job of %d", c, size);
    if (c == (uint32_t)me)
        return common_err_set(CANAL_ERR_PROTO, "response claims our own rank %u", c);
    if (a != (uint32_t)me)
        return common_err_set(CANAL_ERR_PROTO, "response is meant for rank %u, we are %d", a, me);
    ch_sock_hs_connector_proof(secret, nonce_a, in + 16, (int)c, me, mac);
    if (!ch_sock_ct_equal(mac, in + 48, SOCK_MAC_LEN))
        return common_err_set(CANAL_ERR_PROTO, "wrong proof of the job secret (claims rank %u)", c);
    *connector_out = (int)c;
    memcpy(nonce_c_out, in + 16, SOCK_NONCE_LEN);
    return CANAL_OK;
}

void ch_sock_hs_verdict_encode(unsigned char out[SOCK_VERDICT_LEN],
                               const unsigned char secret[SOCK_SECRET_LEN], int verdict,
                               const unsigned char nonce_a[SOCK_NONCE_LEN],
                               const unsigned char nonce_c[SOCK_NONCE_LEN], int connector,
                               int acceptor)
{
    memcpy(out, ch_sock_magic, SOCK_MAGIC_LEN);
    put_le32(out + 8, (uint32_t)verdict);
    put_le32(out + 12, 0);
    ch_sock_hs_acceptor_proof(secret, verdict, nonce_a, nonce_c, connector, acceptor, out + 16);
}

canal_status_t ch_sock_hs_verdict_check(const unsigned char in[SOCK_VERDICT_LEN],
                                        const unsigned char secret[SOCK_SECRET_LEN],
                                        const unsigned char nonce_a[SOCK_NONCE_LEN],
                                        const unsigned char nonce_c[SOCK_NONCE_LEN], int connector,
                                        int acceptor, int *verdict_out)
{
    unsigned char mac[SOCK_MAC_LEN];
    uint32_t v;
    canal_status_t err;

    if ((err = check_magic(in, "verdict")) != CANAL_OK)
        return err;
    v = get_le32(in + 8);
    if ((v != SOCK_VERDICT_ACCEPT && v != SOCK_VERDICT_REJECT) || get_le32(in + 12) != 0)
        return common_err_set(CANAL_ERR_PROTO, "verdict %u unknown", v);
    ch_sock_hs_acceptor_proof(secret, (int)v, nonce_a, nonce_c, connector, acceptor, mac);
    if (!ch_sock_ct_equal(mac, in + 16, SOCK_MAC_LEN))
        return common_err_set(CANAL_ERR_PROTO,
                              "rank %d's answer carries a wrong proof of the job secret", acceptor);
    *verdict_out = (int)v;
    return CANAL_OK;
}

/* ---- the secret ---------------------------------------------------------- */

canal_status_t ch_sock_hex_decode(const char *in, unsigned char *out, size_t n)
{
    if (in == NULL || strlen(in) != 2 * n)
        return common_err_set(CANAL_ERR_PROTO, "expected %zu hex digits, got %zu", 2 * n,
                              in == NULL ? (size_t)0 : strlen(in));
    if (common_hex_decode(in, 2 * n, out, n) < 0)
        return common_err_set(CANAL_ERR_PROTO, "'%.80s' is not hexadecimal", in);
    return CANAL_OK;
}

/* ---- dynamic peers (processes of other jobs) ------------------------------ */

const unsigned char ch_sock_dyn_magic[SOCK_MAGIC_LEN] = {'C', 'N', 'L', 'S', 'D', 'Y', 'N', '1'};

static const char LABEL_DYN_CONNECTOR[] = "canal-sock dynamic connector";
static const char LABEL_DYN_ACCEPTOR[] = "canal-sock dynamic acceptor";

static void put_le64(unsigned char *p, uint64_t v)
{
    put_le32(p, (uint32_t)v);
    put_le32(p + 4, (uint32_t)(v >> 32));
}

static uint64_t get_le64(const unsigned char *p)
{
    return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static void dyn_proof(const unsigned char secret[SOCK_SECRET_LEN], const char *label,
                      int with_verdict, int verdict, const unsigned char nonce_a[SOCK_NONCE_LEN],
                      const unsigned char nonce_c[SOCK_NONCE_LEN], uint64_t cid, uint64_t aid,
                      unsigned char mac_out[SOCK_MAC_LEN])
{
    sock_hmac_t h;
    unsigned char w[8];

    ch_sock_hmac_init(&h, secret, SOCK_SECRET_LEN);
    ch_sock_hmac_update(&h, label, strlen(label));
    if (with_verdict) {
        put_le32(w, (uint32_t)verdict);
        ch_sock_hmac_update(&h, w, 4);
    }
    ch_sock_hmac_update(&h, nonce_a, SOCK_NONCE_LEN);
    ch_sock_hmac_update(&h, nonce_c, SOCK_NONCE_LEN);
    put_le64(w, cid);
    ch_sock_hmac_update(&h, w, 8);
    put_le64(w, aid);
    ch_sock_hmac_update(&h, w, 8);
    ch_sock_hmac_final(&h, mac_out);
}

void ch_sock_hs_dyn_response_encode(unsigned char out[SOCK_DYN_RESPONSE_LEN],
                                    const unsigned char secret[SOCK_SECRET_LEN],
                                    const unsigned char nonce_a[SOCK_NONCE_LEN],
                                    const unsigned char nonce_c[SOCK_NONCE_LEN], uint64_t cid,
                                    uint64_t aid)
{
    memcpy(out, ch_sock_dyn_magic, SOCK_MAGIC_LEN);
    put_le64(out + 8, cid);
    put_le64(out + 16, aid);
    memcpy(out + 24, nonce_c, SOCK_NONCE_LEN);
    dyn_proof(secret, LABEL_DYN_CONNECTOR, 0, 0, nonce_a, nonce_c, cid, aid, out + 56);
}

canal_status_t ch_sock_hs_dyn_response_decode(const unsigned char in[SOCK_DYN_RESPONSE_LEN],
                                              uint64_t *cid_out, uint64_t *aid_out)
{
    uint64_t c, a;

    if (memcmp(in, ch_sock_dyn_magic, SOCK_MAGIC_LEN) != 0)
        return common_err_set(CANAL_ERR_PROTO, "dynamic response without the dynamic magic");
    c = get_le64(in + 8);
    a = get_le64(in + 16);
    if (c == 0 || a == 0 || c == a)
        return common_err_set(CANAL_ERR_PROTO,
                              "dynamic response names ids %016llx and %016llx (zero or equal)",
                              (unsigned long long)c, (unsigned long long)a);
    *cid_out = c;
    *aid_out = a;
    return CANAL_OK;
}

canal_status_t ch_sock_hs_dyn_response_check(const unsigned char in[SOCK_DYN_RESPONSE_LEN],
                                             const unsigned char secret[SOCK_SECRET_LEN],
                                             const unsigned char nonce_a[SOCK_NONCE_LEN],
                                             unsigned char nonce_c_out[SOCK_NONCE_LEN])
{
    unsigned char mac[SOCK_MAC_LEN];
    uint64_t c, a;
    canal_status_t err;

    if ((err = ch_sock_hs_dyn_response_decode(in, &c, &a)) != CANAL_OK)
        return err;
    dyn_proof(secret, LABEL_DYN_CONNECTOR, 0, 0, nonce_a, in + 24, c, a, mac);
    if (!ch_sock_ct_equal(mac, in + 56, SOCK_MAC_LEN))
        return common_err_set(CANAL_ERR_PROTO,
                              "wrong proof of the pair secret (claims id %016llx)",
                              (unsigned long long)c);
    memcpy(nonce_c_out, in + 24, SOCK_NONCE_LEN);
    return CANAL_OK;
}

void ch_sock_hs_dyn_verdict_encode(unsigned char out[SOCK_VERDICT_LEN],
                                   const unsigned char secret[SOCK_SECRET_LEN], int verdict,
                                   const unsigned char nonce_a[SOCK_NONCE_LEN],
                                   const unsigned char nonce_c[SOCK_NONCE_LEN], uint64_t cid,
                                   uint64_t aid)
{
    memcpy(out, ch_sock_dyn_magic, SOCK_MAGIC_LEN);
    put_le32(out + 8, (uint32_t)verdict);
    put_le32(out + 12, 0);
    dyn_proof(secret, LABEL_DYN_ACCEPTOR, 1, verdict, nonce_a, nonce_c, cid, aid, out + 16);
}

canal_status_t ch_sock_hs_dyn_verdict_check(const unsigned char in[SOCK_VERDICT_LEN],
                                            const unsigned char secret[SOCK_SECRET_LEN],
                                            const unsigned char nonce_a[SOCK_NONCE_LEN],
                                            const unsigned char nonce_c[SOCK_NONCE_LEN],
                                            uint64_t cid, uint64_t aid, int *verdict_out)
{
    unsigned char mac[SOCK_MAC_LEN];
    uint32_t v;

    if (memcmp(in, ch_sock_dyn_magic, SOCK_MAGIC_LEN) != 0)
        return common_err_set(CANAL_ERR_PROTO, "dynamic verdict without the dynamic magic");
    v = get_le32(in + 8);
    if ((v != SOCK_VERDICT_ACCEPT && v != SOCK_VERDICT_REJECT) || get_le32(in + 12) != 0)
        return common_err_set(CANAL_ERR_PROTO, "dynamic verdict %u unknown", v);
    dyn_proof(secret, LABEL_DYN_ACCEPTOR, 1, (int)v, nonce_a, nonce_c, cid, aid, mac);
    if (!ch_sock_ct_equal(mac, in + 16, SOCK_MAC_LEN))
        return common_err_set(CANAL_ERR_PROTO,
                              "the answer of id %016llx carries a wrong proof of the pair secret",
                              (unsigned long long)aid);
    *verdict_out = (int)v;
    return CANAL_OK;
}

void ch_sock_dyn_card_format(const char *addr, uint64_t id, char *out, size_t len)
{
    snprintf(out, len, "%s#%016llx", addr, (unsigned long long)id);
}

canal_status_t ch_sock_dyn_card_parse(const char *card, char *addr_out, size_t len,
                                      uint64_t *id_out)
{
    const char *h;
    size_t al;
    uint64_t id = 0;

    if (card == NULL || (h = strrchr(card, '#')) == NULL)
        return common_err_set(CANAL_ERR_PROTO, "dynamic card '%.80s' has no '#<id>'",
                              card != NULL ? card : "(null)");
    al = (size_t)(h - card);
    if (al == 0 || al >= len || strlen(h + 1) != 16)
        return common_err_set(CANAL_ERR_PROTO, "dynamic card '%.80s' is malformed", card);
    for (int i = 1; i <= 16; i++) {
        int d = common_hex_digit(h[i]);
        if (d < 0)
            return common_err_set(CANAL_ERR_PROTO, "dynamic card '%.80s': bad id", card);
        id = id << 4 | (uint64_t)d;
    }
    if (id == 0)
        return common_err_set(CANAL_ERR_PROTO, "dynamic card '%.80s' has id 0", card);
    memcpy(addr_out, card, al);
    addr_out[al] = '\0';
    *id_out = id;
    return CANAL_OK;
}
