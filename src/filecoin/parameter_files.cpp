#include "filecoin/parameter_files.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "filecoin/blake2b.hpp"

namespace cuzk::filecoin {
namespace {

// Data, not code: the v28 entries of parameters.json in filecoin-project/rust-fil-proofs, last
// changed by commit de000dd3 (2022-02-02, "Update SnapDeal production params") and unchanged
// through fil-proofs-param v14.1.0 (commit 87348a74, 2026-06-04). PoRep, PoSt and SnapDeals files
// are named by filecoin/registered_proof.hpp, registered_post_proof.hpp and
// registered_update_proof.hpp (a test checks every computed name is here); the
// empty-sector-update-poseidon entries are the Poseidon tree-D variant, which nothing serves.
constexpr OfficialParameterFile kFiles[] = {
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.params",
     "c3ad7bb549470b82ad52ed070aebb4f4", "Qma5WL6abSqYg9uUQAZ3EHS286bsNsha7oAGsJBD48Bq2q", 536870912},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.vk",
     "994c5b7d450ca9da348c910689f2dc7f", "QmUa7f9JtJMsqJJ3s3ZXk6WyF4xJLE8FiqYskZGgk8GCDv", 536870912},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.params",
     "5aedd2cf3e5c0a15623d56a1b43110ad", "QmQiT4qBGodrVNEgVTDXxBNDdPbaD8Ag7Sx3ZTq1zHX79S", 8388608},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.vk",
     "abd80269054d391a734febdac0d2e687", "QmdcpKUQvHM8RFRVKbk1yHfEqMcBzhtFWKRp9SNEmWq37i", 8388608},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params",
     "311f92a3e75036ced01b1c0025f1fa0c", "QmYM6Hg7mjmvA3ZHTsqkss1fkdyDju5dDmLiBZGJ5pz9y9", 2048},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.vk",
     "eadad9784969890d30f2749708c79771", "QmaQsTLL3nc5dw6wAvaioJSBfd1jhQrA2o6ucFf7XeV74P", 2048},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
     "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params",
     "1b3cfd761a961543f9eb273e435a06a2", "QmNPc75iEfcahCwNKdqnWLtxnjspUGGR4iscjiz3wP3RtS", 34359738368},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
     "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.vk",
     "3a6941983754737fde880d29c7094905", "QmdFFUe1gcz9MMHc6YW8aoV48w4ckvcERjt7PkydQAMfCN", 34359738368},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"
     "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params",
     "1a392e7b759fb18e036c7559b5ece816", "QmUB6xTVjzBQGuDNeyJMrrJ1byk58vhPm8eY2Lv9pgwanp", 68719476736},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"
     "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.vk",
     "80e366df2f1011953c2d01c7b7c9ee8e", "Qmd794Jty7k26XJ8Eg4NDEks65Qk8G4GVfGkwqvymv8HAg", 68719476736},
    {"v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-"
     "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params",
     "b69983b5d7a97a20f43b3d5ff2a4ed04", "QmfK4tonETepL6F4kDFdJ3fr72fzRWoRPf3XGMhV3RLX1S", 34359738368},
    {"v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-"
     "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.vk",
     "1ac05784f304129f74c5184190c1ec78", "QmYCTYJQPu8wgtB2rMZ7HJC9nDx8c1fzYRPdCUiErK4q5a", 34359738368},
    {"v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-2-"
     "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params",
     "a6d4f96e2b641a6d7a1a8e6dc1155c8a", "QmNaaQXfm2NveN2Hf7bJ3udnQB2Qa4moMcUoJYJS6oWL6w", 68719476736},
    {"v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-2-"
     "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.vk",
     "8e8fb9e2c56eb5d740d0de135305a7b8", "QmXyeg9hbM7x9dGuUuAS68ozhiFEez4UkPTgwSDCVYKHBw", 68719476736},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.params",
     "7610b9f82bfc88405b7a832b651ce2f6", "QmVxjFRyhmyQaZEtCh7nk2abc7LhFkzhnRX4rcHqCCpikR", 2048},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.vk",
     "0e0958009936b9d5e515ec97b8cb792d", "QmcS5JZs8X3TdtkEBpHAdUYjdNDqcL7fWQFtQz69mpnu2X", 2048},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9.params",
     "1a7d4a9c8a502a497ed92a54366af33f", "QmUiRx71uxfmUE8V3H9sWAsAXoM88KR4eo1ByvvcFNeTLR", 536870912},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9.vk",
     "4dae975de4f011f101f5a2f86d1daaba", "QmfCeddjFpWtavzfEzZpJfzSajGNwfL4RjFXWAvA9TSnTV", 536870912},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.params",
     "82c88066be968bb550a05e30ff6c2413", "QmcSTqDcFVLGGVYz1njhUZ7B6fkKtBumsLUwx4nkh22TzS", 2048},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.vk",
     "ffd79788d614d27919ae5bd2d94eacb6", "QmSTCXF2ipGA3f6muVo6kHc2URSx6PzZxGUqu7uykaH5KU", 2048},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331.params",
     "700171ecf7334e3199437c930676af82", "QmU9SBzJNrcjRFDiFc4GcApqdApN6z9X7MpUr66mJ2kAJP", 8388608},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331.vk",
     "79ebb55f56fda427743e35053edad8fc", "QmbmUMa3TbbW3X5kFhExs6WgC4KeWT18YivaVmXDkB6ANG", 8388608},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9.params",
     "c49499bb76a0762884896f9683403f55", "QmdNEL2RtqL52GQNuj8uz6mVj5Z34NVnbaJ1yMyh1oXtBx", 8388608},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9.vk",
     "34d4feeacd9abf788d69ef1bb4d8fd00", "QmUiVYCQUgr6Y13pZFr8acWpSM4xvTXUdcvGmxyuHbKhsc", 8388608},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781.params",
     "827359440349fe8f5a016e7598993b79", "QmVgCsJFRXKLuuUhT3aMYwKVGNA9rDeR6DCrs7cAe8riBT", 536870912},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781.vk",
     "bd2cd62f65c1ab84f19ca27e97b7c731", "QmfA31fbCWojSmhSGvvfxmxaYCpMoXP95zEQ9sLvBGHNaN", 536870912},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
     "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params",
     "2cf49eb26f1fee94c85781a390ddb4c8", "QmaUmfcJt6pozn8ndq1JVBzLRjRJdHMTPd4foa8iw5sjBZ", 34359738368},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
     "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.vk",
     "0f8ec542485568fa3468c066e9fed82b", "QmR9i9KL3vhhAqTBGj1bPPC7LvkptxrH9RvxJxLN1vvsBE", 34359738368},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
     "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.params",
     "d84f79a16fe40e9e25a36e2107bb1ba0", "Qmdtczp7p4wrbDofmHdGhiixn9irAcN77mV9AEHZBaTt1i", 34359738368},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
     "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.vk",
     "fc02943678dd119e69e7fab8420e8819", "QmZCvxKcKP97vDAk8Nxs9R1fWtqpjQrAhhfXPoCi1nkDoF", 34359738368},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
     "2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.params",
     "3810b7780ac0e299b22ae70f1f94c9bc", "QmeAN4vuANhXsF8xP2Lx5j2L6yMSdogLzpcvqCJThRGK1V", 68719476736},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
     "2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.vk",
     "59d2bf1857adc59a4f08fcf2afaa916b", "QmWV8rqZLxs1oQN9jxNWmnT1YdgLwCcscv94VARrhHf1T7", 68719476736},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
     "b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c.params",
     "2170a91ad5bae22ea61f2ea766630322", "QmVkrXc1SLcpgcudK5J25HH93QvR9tNsVhVTYHm5UymXAz", 68719476736},
    {"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
     "b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c.vk",
     "6d3789148fb6466d07ee1e24d6292fd6", "QmbfQjPD7EpzjhWGmvWAsyN2mAZ4PcYhsf3ujuhU9CSuBm", 68719476736},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params",
     "434fb1338ecfaf0f59256f30dde4968f", "QmWceMgnWYLopMuM4AoGMvGEau7tNe5UK83XFjH5V9B17h", 2048},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk",
     "dc1ade9929ade1708238f155343044ac", "QmamahpFCstMUqHi2qGtVoDnRrsXhid86qsfvoyCTKJqHr", 2048},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params",
     "6c77597eb91ab936c1cef4cf19eba1b3", "QmYBpTt7LWNAWr1JXThV5VxX7wsQFLd1PHrGYVbrU1EZjC", 536870912},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.vk",
     "065179da19fbe515507267677f02823e", "QmWionkqH2B6TXivzBSQeSyBxojaiAFbzhjtwYRrfwd8nH", 536870912},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params",
     "09e612e4eeb7a0eb95679a88404f960c", "QmPXAPPuQtuQz7Zz3MHMAMEtsYwqM1o9H1csPLeiMUQwZH", 8388608},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.vk",
     "b687beb9adbd9dabe265a7e3620813e4", "QmYCuipFyvVW1GojdMrjK1JnMobXtT4zRCZs1CGxjizs99", 8388608},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
     "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params",
     "6a388072a518cf46ebd661f5cc46900a", "QmengpM684XLQfG8754ToonszgEg2bQeAGUan5uXTHUQzJ", 34359738368},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
     "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.vk",
     "0c7b4aac1c40fdb7eb82bc355b41addf", "Qmf93EMrADXAK6CyiSfE8xx45fkMfR3uzKEPCvZC1n2kzb", 34359738368},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
     "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params",
     "1801f8a6e1b00bceb00cc27314bb5ce3", "QmS7ye6Ri2MfFzCkcUJ7FQ6zxDKuJ6J6B8k5PN7wzSR9sX", 68719476736},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
     "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.vk",
     "a89884252c04c298d0b3c81bfd884164", "QmehSmC6BhrgRZakPDta2ewoH9nosNzdjCqQRXsNFNUkLN", 68719476736},
};

}  // namespace

std::span<const OfficialParameterFile> official_parameter_files() {
  return kFiles;
}

const OfficialParameterFile* find_official_parameter_file(std::string_view name) {
  for (const auto& f : kFiles) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string parameter_file_digest(const std::string& path, const std::function<void(uint64_t)>& progress) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  Blake2bStream hash(64);
  std::vector<uint8_t> buf(8u << 20);
  uint64_t done = 0;
  while (in) {
    in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
    const auto got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    hash.update(std::span<const uint8_t>(buf.data(), got));
    done += got;
    if (progress) progress(done);
  }
  if (in.bad()) throw std::runtime_error(path + ": read error after " + std::to_string(done) + " bytes");
  const std::vector<uint8_t> d = hash.digest();
  std::string hex;
  for (size_t i = 0; i < 16; ++i) {
    char b[3];
    std::snprintf(b, sizeof b, "%02x", d[i]);
    hex += b;
  }
  return hex;
}

}  // namespace cuzk::filecoin
