package provider

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// MySQL makes itself a TLS certificate at --initialize (RSA 2048, self-signed); MariaDB
// 10.11 does not. So that a connection's cost over TLS compares like for like, MariaDB
// gets the same kind: one RSA 2048 key and self-signed certificate per dbbench process
// (a key takes up to a second to make), written into each server's private directory.
// No target uses TLS; the connection-cost measurement does (runners/measure/connectcost), on
// PostgreSQL too.

var (
	certOnce        sync.Once
	certPEM, keyPEM []byte
	certErr         error
)

func makeCert() {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		certErr = err
		return
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "dbbench embedded MariaDB"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		certErr = err
		return
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
}

// tlsArgs writes the certificate and key into dir (0600) and returns the options that
// give them to mariadbd.
func tlsArgs(dir string) ([]string, error) {
	cert, key, err := writeCert(dir)
	if err != nil {
		return nil, err
	}
	return []string{"--ssl-cert=" + cert, "--ssl-key=" + key}, nil
}

// writeCert writes the process's certificate and key into dir, each 0600, and returns
// their paths.
func writeCert(dir string) (cert, key string, err error) {
	certOnce.Do(makeCert)
	if certErr != nil {
		return "", "", fmt.Errorf("embedded provider: a TLS certificate: %w", certErr)
	}
	cert, key = filepath.Join(dir, "server-cert.pem"), filepath.Join(dir, "server-key.pem")
	for path, b := range map[string][]byte{cert: certPEM, key: keyPEM} {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return "", "", fmt.Errorf("embedded provider: %w", err)
		}
	}
	return cert, key, nil
}
