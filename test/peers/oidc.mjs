// A real authorization server in front of an MCP server built on the
// official TypeScript SDK, for mcptray's sign-in tests.
//
// The authorization server is oidc-provider 9 with its default
// configuration, DPoP on (it lists dpop_signing_alg_values_supported in its
// metadata and binds the tokens of any token request that carries a proof),
// and its development login and consent pages. It is given only what no
// default provides: mcptray as a public client (CLIENT_ID, REDIRECT_URI),
// the MCP server as the resource its JWT access tokens are for, and refresh
// tokens for clients allowed the grant (by default it issues them only for
// offline_access asked with prompt=consent, OpenID Connect Core §11, which
// MCP deployments commonly relax so).
//
// RESOURCE picks the MCP server's side:
//   bearer  the SDK's requireBearerAuth and its protected resource metadata
//           router, as most MCP servers are: Bearer tokens only, nothing
//           said of DPoP (the default)
//   dpop    metadata that says it takes only DPoP-bound tokens, and a check
//           of the token's key binding and the proof (RFC 9449 §7)
//   liar    metadata that says it takes DPoP-bound tokens, and the SDK's
//           requireBearerAuth all the same
//
// It prints one line of JSON, {"issuer": …, "mcp": …}, once both listen on
// 127.0.0.1. GET /stats on the MCP server's origin says what it served and
// refused.
import { createHash } from 'node:crypto';
import http from 'node:http';

import express from 'express';
import * as jose from 'jose';
import Provider, { errors } from 'oidc-provider';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';

const mode = process.env.RESOURCE || 'bearer';
const clientId = process.env.CLIENT_ID || 'mcptray';
const redirectURI = process.env.REDIRECT_URI;
if (!['bearer', 'dpop', 'liar'].includes(mode) || !redirectURI) {
  console.error('usage: RESOURCE=bearer|dpop|liar REDIRECT_URI=http://127.0.0.1:PORT/callback node oidc.mjs');
  process.exit(2);
}

const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

const asServer = http.createServer();
const issuer = `http://127.0.0.1:${await listen(asServer)}`;
const rs = express();
const rsServer = http.createServer(rs);
const mcpURL = `http://127.0.0.1:${await listen(rsServer)}/mcp`;
const prmURL = getOAuthProtectedResourceMetadataUrl(new URL(mcpURL));

const provider = new Provider(issuer, {
  clients: [{
    client_id: clientId,
    application_type: 'native',
    token_endpoint_auth_method: 'none',
    redirect_uris: [redirectURI],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  }],
  issueRefreshToken: (ctx, client) => client.grantTypeAllowed('refresh_token'),
  features: {
    resourceIndicators: {
      enabled: true,
      getResourceServerInfo(ctx, indicator) {
        if (indicator !== mcpURL) throw new errors.InvalidTarget();
        return { scope: 'mcp', audience: mcpURL, accessTokenFormat: 'jwt' };
      },
    },
  },
});
asServer.on('request', provider.callback());
const metadata = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
const jwks = jose.createRemoteJWKSet(new URL(metadata.jwks_uri));

const stats = { served: 0, refused: [] };

// The SDK's token verifier interface, over the provider's JWT access
// tokens.
const verifier = {
  async verifyAccessToken(token) {
    let payload;
    try {
      ({ payload } = await jose.jwtVerify(token, jwks, { issuer, audience: mcpURL }));
    } catch {
      throw new InvalidTokenError('Invalid token');
    }
    return {
      token, clientId: payload.client_id, scopes: String(payload.scope || '').split(' '),
      expiresAt: payload.exp, resource: new URL(mcpURL), extra: { cnf: payload.cnf },
    };
  },
};

const base64url = (b) => Buffer.from(b).toString('base64url');

// requireDPoP takes only DPoP-bound tokens with a good proof of their key.
function requireDPoP() {
  return async (req, res, next) => {
    const refuse = (error) => {
      const challenge = `DPoP algs="ES256", resource_metadata="${prmURL}"${error ? `, error="${error}"` : ''}`;
      res.set('WWW-Authenticate', challenge).status(401).json({ error: error || 'unauthorized' });
    };
    const header = req.headers.authorization;
    if (!header) return refuse('');
    const [scheme, token] = header.split(' ');
    if (scheme.toLowerCase() !== 'dpop' || !token) return refuse('invalid_token');
    try {
      const { payload } = await jose.jwtVerify(token, jwks, { issuer, audience: mcpURL });
      const { payload: proof, protectedHeader } = await jose.jwtVerify(String(req.headers.dpop), jose.EmbeddedJWK, {
        typ: 'dpop+jwt', algorithms: ['ES256'],
      });
      const jkt = await jose.calculateJwkThumbprint(protectedHeader.jwk);
      const ath = base64url(createHash('sha256').update(token).digest());
      const fresh = Math.abs(Date.now() / 1000 - proof.iat) < 60;
      if (payload.cnf?.jkt !== jkt || proof.htm !== req.method || proof.htu !== mcpURL || proof.ath !== ath || !fresh) {
        return refuse('invalid_token');
      }
    } catch {
      return refuse('invalid_token');
    }
    return next();
  };
}

rs.get('/stats', (req, res) => res.json(stats));
if (mode !== 'bearer') {
  rs.get(new URL(prmURL).pathname, (req, res) => res.json({
    resource: mcpURL,
    authorization_servers: [issuer],
    scopes_supported: ['mcp'],
    dpop_signing_alg_values_supported: ['ES256'],
    dpop_bound_access_tokens_required: mode === 'dpop',
  }));
}
rs.use(mcpAuthMetadataRouter({ oauthMetadata: metadata, resourceServerUrl: new URL(mcpURL), scopesSupported: ['mcp'] }));

const auth = mode === 'dpop' ? requireDPoP() : requireBearerAuth({ verifier, resourceMetadataUrl: prmURL });
const counted = (req, res, next) => {
  res.on('finish', () => {
    if (res.statusCode === 401 && req.headers.authorization) {
      stats.refused.push(req.headers.authorization.split(' ')[0]);
    }
  });
  next();
};
rs.post('/mcp', counted, express.json(), auth, async (req, res) => {
  stats.served++;
  const server = new McpServer({ name: 'oidc-test', version: '1.0.0' });
  server.tool('hello', 'Says hello', async () => ({ content: [{ type: 'text', text: 'hello' }] }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    transport.close();
    server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});

console.log(JSON.stringify({ issuer, mcp: mcpURL }));
