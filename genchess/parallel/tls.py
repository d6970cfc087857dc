"""The trainer's side of a TLS cluster: its three files, checked before any connection.

A dask scheduler runs whatever its clients submit on every worker, so on a network
the only safe scheduler is one that admits nobody without a key pair its CA
signed (genchess-cluster-certs writes the files). Each file is checked here and
named in the message before dask loads it: a missing, expired or mismatched file
is one line, not a failed handshake to puzzle over.
"""

from __future__ import annotations

import datetime
import ssl
from dataclasses import dataclass
from pathlib import Path

from genchess.parallel.faults import ClusterError, one_line


@dataclass(frozen=True)
class TlsFiles:
    """The trainer's side of a TLS cluster: the cluster's CA certificate, and the
    certificate and private key the trainer shows (genchess-cluster-certs writes them)."""
    ca_file: Path
    cert: Path
    key: Path

    # (field, how a user names it: config key, switch)
    NAMES = (("ca_file", "tls ca file (--tls-ca-file)"), ("cert", "tls cert (--tls-cert)"),
             ("key", "tls key (--tls-key)"))

    @classmethod
    def given(cls, ca_file=None, cert=None, key=None) -> "TlsFiles | None":
        """From the three settings as given (None: not given): None when none is,
        ClusterError naming the missing ones when only some are."""
        values = {"ca_file": ca_file, "cert": cert, "key": key}
        if all(v is None for v in values.values()):
            return None
        missing = [name for field, name in cls.NAMES if values[field] is None]
        if missing:
            raise ClusterError(f"TLS needs the cluster's CA file, a certificate and its key; "
                               f"missing: {', '.join(missing)}")
        return cls(*(Path(v) for v in values.values()))


def client_security(tls: TlsFiles):
    """dask's Security for a client with these files, every file checked first so
    that a problem is reported naming its file, not as a failed handshake."""
    from distributed.security import Security
    for field, name in TlsFiles.NAMES:
        path = getattr(tls, field)
        if not path.is_file():
            raise ClusterError(f"{name.split(' (')[0]} {path}: no such file")
    _check_tls_files(tls)
    security = Security(tls_ca_file=str(tls.ca_file), tls_client_cert=str(tls.cert),
                        tls_client_key=str(tls.key), require_encryption=True)
    try:
        security.get_connection_args("client")          # loads them as the handshake will
    except (ssl.SSLError, OSError, ValueError) as e:
        raise ClusterError(f"cannot use the TLS files {tls.ca_file}, {tls.cert} and {tls.key}: "
                           f"{one_line(e)}") from None
    return security


def _check_tls_files(tls: TlsFiles) -> None:
    """What can be known of the files before connecting: each is what it should be,
    the key is the certificate's, the certificate is the CA's, neither has expired.
    (cryptography comes with genchess[cluster]; without it only ssl's checks run.)"""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import serialization
    except ImportError:
        return
    try:
        authorities = x509.load_pem_x509_certificates(tls.ca_file.read_bytes())
    except ValueError:
        raise ClusterError(f"tls ca file {tls.ca_file}: not a PEM certificate") from None
    try:
        cert = x509.load_pem_x509_certificate(tls.cert.read_bytes())
    except ValueError:
        raise ClusterError(f"tls cert {tls.cert}: not a PEM certificate") from None
    try:
        key = serialization.load_pem_private_key(tls.key.read_bytes(), password=None)
    except (ValueError, TypeError):
        raise ClusterError(f"tls key {tls.key}: not a PEM private key without a password") from None
    public = serialization.PublicFormat.SubjectPublicKeyInfo
    if (key.public_key().public_bytes(serialization.Encoding.PEM, public)
            != cert.public_key().public_bytes(serialization.Encoding.PEM, public)):
        raise ClusterError(f"tls key {tls.key} is not the key of the certificate {tls.cert}")
    issuer = next((ca for ca in authorities if _issued_by(cert, ca)), None)
    if issuer is None:
        raise ClusterError(f"tls cert {tls.cert} was not signed by the CA of {tls.ca_file}: "
                           f"use files from one run of genchess-cluster-certs")
    now = datetime.datetime.now(datetime.timezone.utc)
    for name, path, c in (("tls ca file", tls.ca_file, issuer), ("tls cert", tls.cert, cert)):
        if now > c.not_valid_after_utc:
            raise ClusterError(f"{name} {path} expired on {c.not_valid_after_utc:%Y-%m-%d}: "
                               f"make new files with genchess-cluster-certs")
        if now < c.not_valid_before_utc:
            raise ClusterError(f"{name} {path} is not valid before "
                               f"{c.not_valid_before_utc:%Y-%m-%d %H:%M} UTC (is this clock right?)")


def _issued_by(cert, ca) -> bool:
    try:
        cert.verify_directly_issued_by(ca)
    except Exception:       # ValueError, TypeError, InvalidSignature: not this CA's
        return False
    return True
